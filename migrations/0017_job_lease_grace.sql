-- A job whose lease ran out on its last attempt was marked dead: its worker was taken to
-- have crashed on it. But a lease also runs out when the database is away longer than
-- the lease (the worker cannot renew it), and a job must not die because the database
-- was down. So the first lost lease on a last attempt gives the job one more attempt
-- (`lease_grace` records that it was given); a second is dead, so a job that crashes its
-- worker every time still ends.
-- (Rules as in 0001: no NOT NULL column without a DEFAULT.)
ALTER TABLE jobs ADD COLUMN lease_grace BOOLEAN NOT NULL DEFAULT false;
