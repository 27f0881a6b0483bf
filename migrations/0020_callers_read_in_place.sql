-- What a cold `callers --database-url` reads instead of the whole graph (issue 45 §3):
-- the target's definitions by name, the edges into it, and the count of unresolved call
-- sites that carry its name, each one index range of the repository.
--
-- The edges' index by callee comes back (0009 dropped it when nothing read edges by
-- callee): each level of callers is now one lookup in it. The definitions are looked
-- up by simple and by qualified name, as the engine's `find` does.
CREATE INDEX edges_by_callee ON edges (repo_id, callee_file, callee_def);
CREATE INDEX definitions_by_name ON definitions (repo_id, name);
CREATE INDEX definitions_by_qualified_name ON definitions (repo_id, qualified_name);

-- Call sites that resolved to nothing, counted per file and name: whether a list of
-- callers is complete asks how many carry the target's name, across the repository.
CREATE TABLE unresolved_calls (
    repo_id BIGINT NOT NULL DEFAULT 0,
    file_id INT NOT NULL DEFAULT 0,
    name    TEXT COLLATE "C" NOT NULL DEFAULT '',
    sites   INT NOT NULL DEFAULT 0,
    PRIMARY KEY (repo_id, file_id, name)
);
CREATE INDEX unresolved_calls_by_name ON unresolved_calls (repo_id, name);

-- Which declaration stands for which code (`graph::declared`), with how sure: a call
-- resolved to a declaration is a call of the code it declares. The pairing is worked
-- out over whole packages, so a read of part of the graph takes it from here. Keyed by
-- the code's file and definition, as a question about callers asks for it; rewritten
-- whole by every write of the graph.
CREATE TABLE declared_pairs (
    repo_id     BIGINT NOT NULL DEFAULT 0,
    code_file   INT NOT NULL DEFAULT 0,
    code_def    INT NOT NULL DEFAULT 0,
    decl_file   INT NOT NULL DEFAULT 0,
    decl_def    INT NOT NULL DEFAULT 0,
    confidence  TEXT NOT NULL DEFAULT 'exact',
    PRIMARY KEY (repo_id, code_file, code_def, decl_file, decl_def)
);

-- Whether the rows a read in place needs (the unresolved calls, the pairs) are stored:
-- true once a full write stored them. Until then a question about callers loads the
-- whole graph, as before.
ALTER TABLE repositories ADD COLUMN callers_recorded BOOLEAN NOT NULL DEFAULT false;
