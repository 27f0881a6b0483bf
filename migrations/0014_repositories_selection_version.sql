-- Which policy of files to read (the engine's `SELECTION_VERSION`) the stored graph was
-- built under. A graph stored under an older one lacks files the indexer reads now
-- (vendored code, from version 1): the next push or pull request indexes it again in
-- full instead of applying a diff to it.
ALTER TABLE repositories ADD COLUMN selection_version INTEGER NOT NULL DEFAULT 0;
