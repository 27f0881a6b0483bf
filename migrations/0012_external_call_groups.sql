-- Calls into packages, one row per file and package instead of one per call: a file
-- calls into the same few packages many times (`React.createElement`, `_.map`), and a
-- row per call made these rows a quarter to a third of the edge rows (issue 29 asks
-- for a fifth at most). The row holds the file's calls into the package, each encoded
-- (postcard) one after the other in the file's order; `sites` counts them, so a reader
-- can stop at a bound without decoding. The rows of 0010 are regrouped as they are.
CREATE TABLE external_call_groups (
    repo_id BIGINT NOT NULL DEFAULT 0,
    file_id INT NOT NULL DEFAULT 0,
    package TEXT NOT NULL DEFAULT '',            -- '@acme/money'
    sites   INT NOT NULL DEFAULT 0,              -- calls held
    calls   BYTEA NOT NULL DEFAULT '',           -- the calls, postcard, back to back
    PRIMARY KEY (repo_id, file_id, package)
);
INSERT INTO external_call_groups (repo_id, file_id, package, sites, calls)
SELECT repo_id, file_id, package, count(*), string_agg(call, ''::bytea ORDER BY site)
FROM external_calls
GROUP BY repo_id, file_id, package;
DROP TABLE external_calls;
-- One repository's calls into a package are one index range (see 0011).
CREATE INDEX external_call_groups_by_package ON external_call_groups (package, repo_id);
