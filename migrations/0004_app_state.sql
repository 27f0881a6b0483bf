-- What the app knows about installations and repositories beyond their graphs.
-- (Rules as in 0001: no NOT NULL column without a DEFAULT.)

-- A suspended installation gets no work until it is unsuspended.
ALTER TABLE installations ADD COLUMN suspended BOOLEAN NOT NULL DEFAULT false;

-- The last failure of a repository's indexing, for operators (NULL once it succeeds).
ALTER TABLE repositories ADD COLUMN last_error TEXT;
