-- External calls as 0010 keeps them, one row per call (0012 groups them by file and
-- package, in site order). `call` holds stand-in bytes.
INSERT INTO external_calls (repo_id, file_id, site, package, export_name, line, col, call) VALUES
  (1, 1, 1, '@acme/money', 'parsePrice', 9, 3, '\x0202'),
  (1, 1, 0, '@acme/money', 'formatPrice', 4, 3, '\x0101'),
  (1, 1, 2, 'react', 'useState', 12, 5, '\x03');
