-- Rows as a live database holds them after migration 0002: a second repository, its
-- rows in partitions of its own, as the store attaches them.
INSERT INTO repositories (id, installation_id, github_id, full_name, commit_sha, graph_version)
  VALUES (2, 7, 1002, 'octo-org/lib', 'def456', 1);
CREATE TABLE files_r2 PARTITION OF files FOR VALUES IN (2);
CREATE TABLE definitions_r2 PARTITION OF definitions FOR VALUES IN (2);
CREATE TABLE edges_r2 PARTITION OF edges FOR VALUES IN (2);
INSERT INTO files (repo_id, file_id, path, blob_sha, language, status, variant, parser_version, version)
  VALUES (2, 0, 'index.ts', 'b3', 'typescript', 'indexed', 'typescript', 15, 1);
INSERT INTO definitions (repo_id, file_id, def_index, name, qualified_name, kind, start_line, end_line, exported)
  VALUES (2, 0, 0, 'helper', 'helper', 'function', 1, 2, true);
INSERT INTO edges (repo_id, caller_file, site, caller_def, line, col, kind, callee_file, callee_def, confidence)
  VALUES (2, 0, 0, NULL, 4, 1, 'call', 0, 0, 'exact');
