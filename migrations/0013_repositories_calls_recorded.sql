-- Whether the repository's calls into packages are stored (issue 29): true once a full
-- write has stored them. Repositories stored before 0010 have none until then, and an
-- upgrade should not wait for their next full index: `blast-radius migrate` (and
-- `serve` when it migrates) write them from the stored graphs. A repository with rows
-- already has them.
ALTER TABLE repositories ADD COLUMN calls_recorded BOOLEAN NOT NULL DEFAULT false;
UPDATE repositories SET calls_recorded = true
WHERE id IN (SELECT DISTINCT repo_id FROM external_call_groups);
