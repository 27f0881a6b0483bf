-- Deferrals: a job that hits GitHub's rate limit waits for its reset without spending an
-- attempt; this counts how often that happened, so the queue can bound it (see
-- QueueConfig::max_deferrals). Adding a column with a constant default rewrites nothing.
-- (Rules as in 0001: no NOT NULL column without a DEFAULT.)
ALTER TABLE jobs ADD COLUMN deferrals INT NOT NULL DEFAULT 0;
