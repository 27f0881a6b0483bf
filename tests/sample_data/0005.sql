-- Rows as a live database holds them after migration 0005: deliveries and jobs in each
-- state, so the queue's later migrations (a new column, new indexes) apply over them.
INSERT INTO deliveries (delivery_id, event, action, installation_id, repository_id, outcome, jobs)
  VALUES ('d-1', 'pull_request', 'opened', 7, 1001, 'queued', 2),
         ('d-2', 'ping', NULL, NULL, NULL, 'ignored', 0);
INSERT INTO jobs (kind, payload, serial_key, state, attempts, max_attempts, last_error, delivery_id, finished_at)
  VALUES ('analyze_pr', '{"number": 1}', 'repo:1001', 'waiting', 0, 8, NULL, 'd-1', NULL),
         ('answer_command', '{"body": "@blast-radius callers x"}', 'repo:1001', 'done', 1, 8, NULL, 'd-1', now()),
         ('index_repository', '{}', 'repo:1002', 'dead', 8, 8, 'GitHub answered 502', NULL, now());
