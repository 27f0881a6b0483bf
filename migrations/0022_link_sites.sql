-- Each repository's links across service boundaries (issue 47), per file: the HTTP
-- routes it serves and the requests it makes, the queue topics it consumes and
-- produces to, the tRPC procedures it serves and calls. Mounts and client instances
-- are composed into these sites before they are stored (`links::resolve`), so a row
-- says where its site is and what it serves or reaches, whole.
--
-- Rows grow with the sites, never with pairs of repositories: a pull request that
-- changes a handler asks which stored clients and producers of the installation's
-- other repositories may reach what it serves, and confirms each in Rust
-- (`links::match_endpoints`). Candidates are found by index:
-- - topics and tRPC procedures by (kind, name): a producer reaches a consumer of the
--   same system and name only;
-- - HTTP clients by their path's literal segments (GIN): a route's last literal
--   segment is a literal of every client that reaches it, whole or by suffix (a client
--   whose base is unknown holds a tail of the route, and every tail that says anything
--   holds the route's last literal).
-- Kept current with the graph: every write of a repository's graph replaces them (a
-- mount or a client instance in one file changes the sites of others).
CREATE TABLE link_sites (
    repo_id  BIGINT NOT NULL DEFAULT 0,
    file_id  INT NOT NULL DEFAULT 0,
    site     INT NOT NULL DEFAULT 0,              -- its number among the file's sites
    role     TEXT NOT NULL DEFAULT '',            -- route, client, producer, consumer
    kind     TEXT NOT NULL DEFAULT '',            -- http, trpc, or a topic's system (kafka, ...)
    method   TEXT,                                -- HTTP: GET, ...; none: every (route) or unknown (client)
    endpoint TEXT NOT NULL DEFAULT '',            -- as shown: `GET /users/:id`, `kafka:orders`
    name     TEXT NOT NULL DEFAULT '',            -- topic name or procedure path; '' for HTTP
    literals TEXT[] NOT NULL DEFAULT '{}',        -- HTTP: the path's literal segments
    segments INT NOT NULL DEFAULT 0,              -- HTTP: the path's segments
    line     INT NOT NULL DEFAULT 0,              -- 1-based
    col      INT NOT NULL DEFAULT 0,              -- 1-based
    handler  TEXT,                                -- routes, consumers: the handler's qualified name
    encoded  BYTEA NOT NULL DEFAULT '',           -- the whole endpoint, postcard
    PRIMARY KEY (repo_id, file_id, site)
);
CREATE INDEX link_sites_by_name ON link_sites (kind, name, repo_id)
    WHERE role IN ('client', 'producer');
CREATE INDEX link_sites_by_literal ON link_sites USING GIN (literals)
    WHERE role = 'client' AND kind = 'http';
-- Repositories stored before: their sites are written from their stored graphs by
-- `blast-radius migrate` (and `serve` when it migrates), with their calls, as after 0013.
UPDATE repositories SET calls_recorded = false WHERE calls_recorded;
