-- What the status page shows of the App's work (issue 46): each pull request's analysis,
-- each repository's freshness against its default branch, and the rate limit left.
-- (Rules as in 0001: no NOT NULL column without a DEFAULT.)

-- The default branch's head as the last push to it said, written with that push's job
-- (intake, one transaction), so the page can set the commit the graph reflects against
-- it: a push whose job has not run yet, or failed, shows as a graph behind its branch.
ALTER TABLE repositories ADD COLUMN pushed_sha TEXT;
ALTER TABLE repositories ADD COLUMN pushed_at TIMESTAMPTZ;

-- GitHub's primary rate limit for an installation's token, as a job of it last saw it
-- (the `x-ratelimit-*` headers of its last answer).
ALTER TABLE installations ADD COLUMN rate_remaining INT;
ALTER TABLE installations ADD COLUMN rate_limit INT;
ALTER TABLE installations ADD COLUMN rate_reset TIMESTAMPTZ;
ALTER TABLE installations ADD COLUMN rate_seen_at TIMESTAMPTZ;

-- One row per pull request analysis posted, written by the job as it finishes; the last
-- 100 of each repository are kept. A repository's rows (distributed by repo_id, as its
-- graph's) go with it.
CREATE TABLE analyses (
    repo_id     BIGINT NOT NULL DEFAULT 0 REFERENCES repositories (id) ON DELETE CASCADE,
    id          BIGSERIAL,
    pr_number   BIGINT NOT NULL DEFAULT 0,
    pr_title    TEXT NOT NULL DEFAULT '',
    pr_url      TEXT NOT NULL DEFAULT '',     -- the PR's page on GitHub (or GHES)
    head_sha    TEXT NOT NULL DEFAULT '',
    conclusion  TEXT,                         -- the check run's: success | neutral | failure;
                                              -- NULL when the repository turned it off
    breaking    INT NOT NULL DEFAULT 0,       -- untouched call sites the change breaks
    untouched   INT NOT NULL DEFAULT 0,       -- call sites the change left untouched
    changed     INT NOT NULL DEFAULT 0,       -- changed functions
    took_ms     BIGINT NOT NULL DEFAULT 0,    -- the job's attempt, start to posted
    finished_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (repo_id, id)
);
CREATE INDEX analyses_by_time ON analyses (finished_at DESC, id DESC);
