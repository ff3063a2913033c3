-- keel schema v36: the gateway reads the suspense cases' deadline.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- The gateway's /metrics is the one an SRE scrapes, so the gateway reads the
-- gauges of the database's state itself, among them suspense cases past
-- their deadline. The deadline is policy (ops_policy.case_deadline), which
-- the service login could not read; it may read that column and no other.

GRANT SELECT (case_deadline) ON ops_policy TO keel_gateway;
