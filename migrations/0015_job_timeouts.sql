-- A job stopped at its deadline: how many times on its current input, and which files its
-- work was reading then. The second time it is dead (not retried forever); the retry
-- after the first leaves those files out and says so. A new input (a coalesced newer
-- payload) starts both afresh.
ALTER TABLE jobs ADD COLUMN timeouts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN stalled_files TEXT[] NOT NULL DEFAULT '{}';
