-- Rows as a live database holds them after migration 0001; later migrations must apply
-- over them.
INSERT INTO installations (id, account_login) VALUES (7, 'octo-org');
INSERT INTO repositories (id, installation_id, github_id, full_name, commit_sha, graph_version)
  VALUES (1, 7, 1001, 'octo-org/app', 'abc123', 3);
INSERT INTO facts_cache (blob_sha, variant, parser_version, facts) VALUES ('b1', 'javascript', 1, '\x00');
INSERT INTO files (repo_id, file_id, path, blob_sha, language, status, variant, parser_version, version)
  VALUES (1, 0, 'src/a.js', 'b1', 'javascript', 'indexed', 'javascript', 1, 3),
         (1, 1, 'dist/app.min.js', 'b2', 'javascript', 'skipped', '', 1, 3);
UPDATE files SET skip_reason = 'minified' WHERE path = 'dist/app.min.js';
INSERT INTO removed_files (repo_id, path, version) VALUES (1, 'src/old.js', 2);
INSERT INTO definitions (repo_id, file_id, def_index, name, qualified_name, kind, start_line, end_line)
  VALUES (1, 0, 0, 'main', 'main', 'function', 1, 3);
INSERT INTO edges (repo_id, caller_file, site, caller_def, line, col, kind, callee_file, callee_def, confidence)
  VALUES (1, 0, 0, 0, 2, 3, 'call', 0, 0, 'exact');
