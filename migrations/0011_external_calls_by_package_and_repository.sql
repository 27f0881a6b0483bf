-- The calls into a package are read joined to the installation's repositories. Keyed by
-- (package, repo_id), one repository's calls into a package are one index range,
-- whichever side the plan starts from. Keyed by (package, export_name), a plan that
-- started from the repositories (as Postgres chose on the statistics of a database
-- just filled) read every call into the package once per repository: 16,000 calls
-- across 1,000 repositories took 240 ms to read (benches/org.rs).
DROP INDEX external_calls_by_package;
CREATE INDEX external_calls_by_package ON external_calls (package, repo_id, export_name);
