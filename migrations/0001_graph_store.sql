-- The durable half of the graph: per-file facts and edges of every repository.
-- Rules for every migration here (a test enforces them): no NOT NULL column without a
-- DEFAULT, so a migration never fails on a live table with rows.

CREATE TABLE installations (
    id            BIGINT PRIMARY KEY,                -- GitHub installation id
    account_login TEXT NOT NULL DEFAULT '',
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE repositories (
    id              BIGSERIAL PRIMARY KEY,
    installation_id BIGINT REFERENCES installations (id) ON DELETE CASCADE,
    github_id       BIGINT UNIQUE,                   -- null for repositories indexed from the CLI
    full_name       TEXT NOT NULL DEFAULT '' UNIQUE,
    default_branch  TEXT NOT NULL DEFAULT 'main',
    commit_sha      TEXT,                            -- the commit the stored graph reflects
    graph_version   BIGINT NOT NULL DEFAULT 0,       -- bumped by every write of the graph
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Facts of a file's content, keyed by content: the same blob in a branch or a fork is
-- parsed once. `variant` is what else the facts depend on (language, declaration file).
CREATE TABLE facts_cache (
    blob_sha       TEXT NOT NULL DEFAULT '',
    variant        TEXT NOT NULL DEFAULT '',
    parser_version INT NOT NULL DEFAULT 0,
    facts          BYTEA NOT NULL DEFAULT '',
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (blob_sha, variant, parser_version)
);

-- Facts are compact binary that compresses poorly: storing them uncompressed saves
-- the server's CPU on every write and read.
ALTER TABLE facts_cache ALTER COLUMN facts SET STORAGE EXTERNAL;

CREATE TABLE files (
    repo_id        BIGINT NOT NULL DEFAULT 0 REFERENCES repositories (id) ON DELETE CASCADE,
    file_id        INT NOT NULL DEFAULT 0,           -- the file's number in its repository
    path           TEXT NOT NULL DEFAULT '',
    blob_sha       TEXT NOT NULL DEFAULT '',
    language       TEXT,
    status         TEXT NOT NULL DEFAULT 'indexed',  -- indexed | skipped | config
    skip_reason    TEXT,
    parse_errors   INT NOT NULL DEFAULT 0,
    variant        TEXT NOT NULL DEFAULT '',
    parser_version INT NOT NULL DEFAULT 0,
    content        TEXT,                             -- config files: their text
    resolution     BYTEA,                            -- the file's resolved edges and dependencies
    version        BIGINT NOT NULL DEFAULT 0,        -- graph_version that last wrote this row
    PRIMARY KEY (repo_id, path),
    UNIQUE (repo_id, file_id)
);
CREATE INDEX files_by_version ON files (repo_id, version);
ALTER TABLE files ALTER COLUMN resolution SET STORAGE EXTERNAL;

-- Paths removed from a repository, so a replica holding an older graph version can
-- catch up by reading only what changed.
CREATE TABLE removed_files (
    repo_id BIGINT NOT NULL DEFAULT 0 REFERENCES repositories (id) ON DELETE CASCADE,
    path    TEXT NOT NULL DEFAULT '',
    version BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (repo_id, path)
);
CREATE INDEX removed_files_by_version ON removed_files (repo_id, version);

-- Definitions and edges name files by number: rows stay small and indexes compare
-- integers. They carry no foreign keys (a check per row would slow bulk writes many
-- times over); the store deletes them with their files and repositories.
CREATE TABLE definitions (
    repo_id        BIGINT NOT NULL DEFAULT 0,
    file_id        INT NOT NULL DEFAULT 0,
    def_index      INT NOT NULL DEFAULT 0,
    name           TEXT NOT NULL DEFAULT '',
    qualified_name TEXT NOT NULL DEFAULT '',
    kind           TEXT NOT NULL DEFAULT '',
    start_line     INT NOT NULL DEFAULT 0,
    end_line       INT NOT NULL DEFAULT 0,
    exported       BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (repo_id, file_id, def_index)
);
CREATE INDEX definitions_by_name ON definitions (repo_id, name);

CREATE TABLE edges (
    repo_id     BIGINT NOT NULL DEFAULT 0,
    caller_file INT NOT NULL DEFAULT 0,
    site        INT NOT NULL DEFAULT 0,
    caller_def  INT,                                 -- null: the file's top-level code
    line        INT NOT NULL DEFAULT 0,              -- 1-based
    col         INT NOT NULL DEFAULT 0,              -- 1-based
    kind        TEXT NOT NULL DEFAULT 'call',
    callee_file INT NOT NULL DEFAULT 0,
    callee_def  INT NOT NULL DEFAULT 0,
    confidence  TEXT NOT NULL DEFAULT 'exact'
);
-- Reverse lookup (what calls X), answerable in SQL alone.
CREATE INDEX edges_by_callee ON edges (repo_id, callee_file, callee_def);
-- Invalidation: replace one file's edges.
CREATE INDEX edges_by_caller_file ON edges (repo_id, caller_file);
