-- Rows as a live database holds them after migration 0007, in partitions per repository:
-- facts no file holds any more, and tables a first write died before attaching.
INSERT INTO facts_cache (blob_sha, variant, parser_version, facts) VALUES ('b0', 'javascript', 1, '\x00');
INSERT INTO facts_cache (blob_sha, variant, parser_version, facts) VALUES ('b3', 'typescript', 15, '\x01');
INSERT INTO repositories (id, installation_id, github_id, full_name) VALUES (3, 7, 1003, 'octo-org/died');
CREATE TABLE files_r3 (LIKE files INCLUDING DEFAULTS);
CREATE TABLE edges_r3 (LIKE edges INCLUDING DEFAULTS);
INSERT INTO edges_r3 (repo_id, caller_file, callee_file) VALUES (3, 0, 0);
