-- Indexes for a queue whose finished rows are pruned on a schedule, and for the status
-- page and /metrics, so none of them scans the whole jobs table. (The jobs table is kept
-- small by retention, so building them in the migration's transaction is brief.)

-- Pruning done and dead jobs by age; counting dead ones (and done ones, index-only, for
-- the status page).
CREATE INDEX jobs_done_by_finish ON jobs (finished_at) WHERE state = 'done';
CREATE INDEX jobs_dead_by_finish ON jobs (finished_at) WHERE state = 'dead';
-- The status page's recent failures: ORDER BY updated_at DESC, id DESC among jobs with
-- an error.
CREATE INDEX jobs_failures_by_time ON jobs (updated_at DESC, id DESC)
    WHERE last_error IS NOT NULL;
-- Deleting a delivery sets its jobs' delivery_id to NULL (ON DELETE SET NULL): without an
-- index each deleted delivery would scan the jobs table.
CREATE INDEX jobs_by_delivery ON jobs (delivery_id) WHERE delivery_id IS NOT NULL;
-- (The recent deliveries are read through deliveries_by_time, from 0003.)
