-- One partition per repository for files, definitions and edges.
--
-- Why: a repository's first full write (an installation indexes every repository it
-- is given) can then go into tables of its own that have no index to maintain row by
-- row and no foreign key to check row by row. The store copies the rows in, builds
-- each index with one sort, and attaches the tables as the repository's partitions:
-- attaching takes a lock that blocks neither readers nor writers of other
-- repositories (SHARE UPDATE EXCLUSIVE on the parent). Every query names one
-- repository, so it reads one partition.
--
-- Inside a partition every row has the same repo_id, so the non-unique indexes leave
-- it out and stay narrow. Names and paths compare bytewise (COLLATE "C"): identifiers
-- and paths need no linguistic order, and the server sorts them faster.
--
-- On a live database the existing rows move into their repositories' partitions in
-- this migration's transaction; rows of repositories that no longer exist (left by a
-- failed delete) are dropped.

ALTER TABLE files RENAME TO files_0001;
ALTER INDEX files_pkey RENAME TO files_0001_pkey;
ALTER INDEX files_repo_id_file_id_key RENAME TO files_0001_repo_id_file_id_key;
ALTER INDEX files_by_version RENAME TO files_0001_by_version;
ALTER TABLE definitions RENAME TO definitions_0001;
ALTER INDEX definitions_pkey RENAME TO definitions_0001_pkey;
ALTER INDEX definitions_by_name RENAME TO definitions_0001_by_name;
ALTER TABLE edges RENAME TO edges_0001;
ALTER INDEX edges_by_callee RENAME TO edges_0001_by_callee;
ALTER INDEX edges_by_caller_file RENAME TO edges_0001_by_caller_file;

CREATE TABLE files (
    repo_id        BIGINT NOT NULL DEFAULT 0 REFERENCES repositories (id) ON DELETE CASCADE,
    file_id        INT NOT NULL DEFAULT 0,           -- the file's number in its repository
    path           TEXT COLLATE "C" NOT NULL DEFAULT '',
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
) PARTITION BY LIST (repo_id);
CREATE INDEX files_by_version ON files (version);
ALTER TABLE files ALTER COLUMN resolution SET STORAGE EXTERNAL;

CREATE TABLE definitions (
    repo_id        BIGINT NOT NULL DEFAULT 0,
    file_id        INT NOT NULL DEFAULT 0,
    def_index      INT NOT NULL DEFAULT 0,
    name           TEXT COLLATE "C" NOT NULL DEFAULT '',
    qualified_name TEXT COLLATE "C" NOT NULL DEFAULT '',
    kind           TEXT NOT NULL DEFAULT '',
    start_line     INT NOT NULL DEFAULT 0,
    end_line       INT NOT NULL DEFAULT 0,
    exported       BOOLEAN NOT NULL DEFAULT false,
    PRIMARY KEY (repo_id, file_id, def_index)
) PARTITION BY LIST (repo_id);
CREATE INDEX definitions_by_name ON definitions (name);

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
) PARTITION BY LIST (repo_id);
-- Reverse lookup (what calls X), answerable in SQL alone.
CREATE INDEX edges_by_callee ON edges (callee_file, callee_def);
-- Invalidation: replace one file's edges.
CREATE INDEX edges_by_caller_file ON edges (caller_file);

DO $$
DECLARE
    repo BIGINT;
    t TEXT;
BEGIN
    FOR repo IN SELECT id FROM repositories ORDER BY id LOOP
        FOREACH t IN ARRAY ARRAY['files', 'definitions', 'edges'] LOOP
            EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES IN (%s)',
                           t || '_r' || repo, t, repo);
        END LOOP;
    END LOOP;
END $$;

INSERT INTO files SELECT * FROM files_0001;
INSERT INTO definitions SELECT * FROM definitions_0001
    WHERE repo_id IN (SELECT id FROM repositories);
INSERT INTO edges SELECT * FROM edges_0001
    WHERE repo_id IN (SELECT id FROM repositories);
DROP TABLE edges_0001, definitions_0001, files_0001;

-- Blob shas are hex: compare them bytewise too.
ALTER TABLE facts_cache ALTER COLUMN blob_sha TYPE TEXT COLLATE "C";
ALTER TABLE facts_cache ALTER COLUMN variant TYPE TEXT COLLATE "C";
