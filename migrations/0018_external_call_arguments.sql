-- What each call into a package passes and how its result is taken (issue 44): one byte
-- per call of the row, in the order of `calls` (0: not known), so the package's owner
-- can judge the call against a function's new contract. Kept beside `calls`, not in
-- them: rows written before decode as they were, their calls' arguments unknown until
-- written again. `blast-radius migrate` (and `serve` when it migrates) writes every
-- repository's rows again from its stored graph, as after 0013.
ALTER TABLE external_call_groups ADD COLUMN args BYTEA NOT NULL DEFAULT '';
UPDATE repositories SET calls_recorded = false WHERE calls_recorded;
