-- The GitHub App's intake and durable job queue.
--
-- Every webhook delivery is recorded once by its X-GitHub-Delivery GUID (a redelivery
-- carries the same GUID), in the same transaction as the jobs it asks for. Workers in
-- any number of processes claim jobs with FOR UPDATE SKIP LOCKED; Postgres is the only
-- coordinator.

CREATE TABLE deliveries (
    delivery_id     TEXT PRIMARY KEY,                -- X-GitHub-Delivery
    event           TEXT NOT NULL DEFAULT '',        -- X-GitHub-Event
    action          TEXT,
    installation_id BIGINT,
    repository_id   BIGINT,                          -- GitHub's repository id
    outcome         TEXT NOT NULL DEFAULT 'queued',  -- queued | ignored
    jobs            INT NOT NULL DEFAULT 0,          -- how many jobs it enqueued
    received_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_by_time ON deliveries (received_at);

-- A job is waiting (claimable once run_at has come), running (claimed_by holds it until
-- locked_until; its worker's heartbeat moves that on, and a lease that ran out makes it
-- claimable again: its worker died), done or dead (failed max_attempts times, or
-- permanently; last_error says why).
--
-- serial_key: jobs of one key never run at the same time (a unique index: at most one
-- running job per key), and run in the order they were enqueued.
-- coalesce_key: a new job with the key of a waiting one replaces it (at most one waiting
-- job per key), and marks a running one superseded so its worker does not publish
-- stale results.
CREATE TABLE jobs (
    id           BIGSERIAL PRIMARY KEY,
    kind         TEXT NOT NULL DEFAULT '',
    payload      JSONB NOT NULL DEFAULT '{}',
    serial_key   TEXT,
    coalesce_key TEXT,
    state        TEXT NOT NULL DEFAULT 'waiting'
                 CHECK (state IN ('waiting', 'running', 'done', 'dead')),
    superseded   BOOLEAN NOT NULL DEFAULT false,
    attempts     INT NOT NULL DEFAULT 0,          -- claims that counted
    max_attempts INT NOT NULL DEFAULT 5,
    run_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    claimed_by   TEXT,                            -- the worker holding the lease
    claim_token  BIGINT,                          -- fences a worker whose lease was lost
    locked_until TIMESTAMPTZ,
    last_error   TEXT,
    delivery_id  TEXT REFERENCES deliveries (delivery_id) ON DELETE SET NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at  TIMESTAMPTZ
);

-- Claiming: the oldest due waiting job first.
CREATE INDEX jobs_waiting ON jobs (run_at, id) WHERE state = 'waiting';
-- Per-key order: is an older job of this key still waiting?
CREATE INDEX jobs_waiting_by_key ON jobs (serial_key, id) WHERE state = 'waiting';
-- Per-key exclusivity, enforced by the database even against concurrent claimers.
CREATE UNIQUE INDEX jobs_one_running_per_key ON jobs (serial_key) WHERE state = 'running';
-- Coalescing: at most one waiting job per coalescing key (the target of ON CONFLICT).
CREATE UNIQUE INDEX jobs_one_waiting_per_coalesce_key ON jobs (coalesce_key)
    WHERE state = 'waiting';
CREATE INDEX jobs_running_by_coalesce_key ON jobs (coalesce_key) WHERE state = 'running';
-- Crash recovery: running jobs by lease expiry.
CREATE INDEX jobs_running_by_lease ON jobs (locked_until) WHERE state = 'running';
