-- Recovering the webhook deliveries GitHub failed to hand over (it never retries one).
--
-- One row: `taken_through` is the high-water mark of GitHub's delivery log (its
-- `delivered_at`): every delivery attempted before it was taken (recorded in `deliveries`,
-- or answered OK) or given up on, so a recovery round reads the log back to it and no
-- further (never further than GitHub keeps it either: 3 days). NULL until a round ends.
-- A round is held by one process at a time (`held_by` until `held_until`), so several
-- `serve` processes do not each ask for the same redeliveries.
-- (Rules as in 0001: no NOT NULL column without a DEFAULT.)
CREATE TABLE delivery_recovery (
    id            INT PRIMARY KEY DEFAULT 1 CHECK (id = 1),
    taken_through TIMESTAMPTZ,
    held_by       TEXT,
    held_until    TIMESTAMPTZ,
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
INSERT INTO delivery_recovery (id) VALUES (1);
