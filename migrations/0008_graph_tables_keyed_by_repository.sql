-- The graph's rows in plain tables keyed by repository, in place of a partition per
-- repository (0002).
--
-- Why: each repository's partitions cost 16 relations and about 430 KB before a row was
-- written, so at a few thousand repositories the catalog, the planner and autovacuum
-- spent most of their time on empty relations, and every write got slower as the
-- repositories grew in number (BENCHMARKS.md, "storage across repositories"). Here the
-- number of relations is fixed. Every key and index leads with repo_id, so one
-- repository's rows sit together in each index: its writes, reads and deletes touch its
-- own index pages, whatever else the tables hold, and a purge deletes its rows without
-- locking anyone else's.
--
-- Ready to be distributed by repository (Citus `create_distributed_table(t, 'repo_id')`):
-- every table of graph rows carries repo_id, every primary key and unique index includes
-- it, and their only foreign keys point at `repositories`, a small table that would be a
-- reference table. The facts cache is keyed by repository too, so it is co-located with
-- the files that read it; it is pruned as files leave, where before it kept every blob
-- ever seen.
--
-- On a live database the rows move in this migration's transaction. Facts no stored
-- file refers to are not carried over (they are parsed again if ever needed); tables a
-- failed first write left behind (files_r7 and the like) are dropped.

ALTER TABLE files RENAME TO files_0007;
ALTER INDEX files_pkey RENAME TO files_0007_pkey;
ALTER INDEX files_repo_id_file_id_key RENAME TO files_0007_repo_id_file_id_key;
ALTER INDEX files_by_version RENAME TO files_0007_by_version;
ALTER TABLE definitions RENAME TO definitions_0007;
ALTER INDEX definitions_pkey RENAME TO definitions_0007_pkey;
ALTER INDEX definitions_by_name RENAME TO definitions_0007_by_name;
ALTER TABLE edges RENAME TO edges_0007;
ALTER INDEX edges_by_callee RENAME TO edges_0007_by_callee;
ALTER INDEX edges_by_caller_file RENAME TO edges_0007_by_caller_file;
ALTER TABLE facts_cache RENAME TO facts_cache_0007;
ALTER INDEX facts_cache_pkey RENAME TO facts_cache_0007_pkey;

CREATE TABLE files (
    repo_id        BIGINT NOT NULL DEFAULT 0 REFERENCES repositories (id) ON DELETE CASCADE,
    file_id        INT NOT NULL DEFAULT 0,           -- the file's number in its repository
    path           TEXT COLLATE "C" NOT NULL DEFAULT '',
    blob_sha       TEXT COLLATE "C" NOT NULL DEFAULT '',
    language       TEXT,
    status         TEXT NOT NULL DEFAULT 'indexed',  -- indexed | skipped | config
    skip_reason    TEXT,
    parse_errors   INT NOT NULL DEFAULT 0,
    variant        TEXT COLLATE "C" NOT NULL DEFAULT '',
    parser_version INT NOT NULL DEFAULT 0,
    content        TEXT,                             -- config files: their text
    resolution     BYTEA,                            -- the file's resolved edges and dependencies
    version        BIGINT NOT NULL DEFAULT 0,        -- graph_version that last wrote this row
    PRIMARY KEY (repo_id, path),
    UNIQUE (repo_id, file_id)
);
CREATE INDEX files_by_version ON files (repo_id, version);
-- Pruning the facts cache asks which files still hold a blob. By the blob's hash: a
-- 4-byte key in place of 41 bytes of hex, a third of the index (queries compare the
-- blobs themselves too).
CREATE INDEX files_by_blob ON files (repo_id, hashtext(blob_sha));
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
);
-- No index by name: nothing asks for definitions by name in SQL (callers are looked up
-- from the graph in memory), and every index costs each write and about 5% of a
-- repository's bytes.

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

-- Facts of a file's content, keyed by content within a repository: a blob at several
-- paths, in several versions of the graph or again after a purge and re-install is
-- parsed once. `variant` is what else the facts depend on (language, declaration file).
CREATE TABLE facts_cache (
    repo_id        BIGINT NOT NULL DEFAULT 0 REFERENCES repositories (id) ON DELETE CASCADE,
    blob_sha       TEXT COLLATE "C" NOT NULL DEFAULT '',
    variant        TEXT COLLATE "C" NOT NULL DEFAULT '',
    parser_version INT NOT NULL DEFAULT 0,
    facts          BYTEA NOT NULL DEFAULT '',
    PRIMARY KEY (repo_id, blob_sha, variant, parser_version)
);
ALTER TABLE facts_cache ALTER COLUMN facts SET STORAGE EXTERNAL;

INSERT INTO files SELECT * FROM files_0007 WHERE repo_id IN (SELECT id FROM repositories);
INSERT INTO definitions SELECT * FROM definitions_0007
    WHERE repo_id IN (SELECT id FROM repositories);
INSERT INTO edges SELECT * FROM edges_0007 WHERE repo_id IN (SELECT id FROM repositories);
INSERT INTO facts_cache (repo_id, blob_sha, variant, parser_version, facts)
    SELECT DISTINCT ON (f.repo_id, c.blob_sha, c.variant, c.parser_version)
           f.repo_id, c.blob_sha, c.variant, c.parser_version, c.facts
    FROM files f
    JOIN facts_cache_0007 c ON c.blob_sha = f.blob_sha AND c.variant = f.variant
                           AND c.parser_version = f.parser_version;

-- Dropping a partitioned table drops its partitions.
DROP TABLE edges_0007, definitions_0007, files_0007, facts_cache_0007;
DO $$
DECLARE
    t TEXT;
BEGIN
    FOR t IN SELECT c.relname FROM pg_class c
             JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = current_schema() AND c.relkind = 'r'
               AND c.relname ~ '^(files|definitions|edges)_r[0-9]+$' LOOP
        EXECUTE format('DROP TABLE %I', t);
    END LOOP;
END $$;
