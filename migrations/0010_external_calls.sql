-- Calls a repository's files make into packages outside it (issue 29), kept with what
-- they call, so a pull request to the repository that owns a package can list them.
-- Stored per file like the rest of the graph: a push rewrites the rows of the files it
-- changed. Keyed by repository first (distributable by repo_id); looked up across the
-- installation's repositories by (package, exported name).
CREATE TABLE external_calls (
    repo_id     BIGINT NOT NULL DEFAULT 0,
    file_id     INT NOT NULL DEFAULT 0,
    site        INT NOT NULL DEFAULT 0,              -- its number among the file's external calls
    package     TEXT NOT NULL DEFAULT '',            -- '@acme/money'
    export_name TEXT NOT NULL DEFAULT '',            -- the name read from the package
    line        INT NOT NULL DEFAULT 0,              -- 1-based
    col         INT NOT NULL DEFAULT 0,              -- 1-based
    call        BYTEA NOT NULL DEFAULT '',           -- the whole call (specifier, steps, ...), postcard
    PRIMARY KEY (repo_id, file_id, site)
);
CREATE INDEX external_calls_by_package ON external_calls (package, export_name);

-- Whether a repository is private, from GitHub's payloads: a public repository's pull
-- request may name another repository's call sites only when that one is public too.
-- Unknown (indexed from the CLI, or before this column) counts as private.
ALTER TABLE repositories ADD COLUMN private BOOLEAN NOT NULL DEFAULT true;
