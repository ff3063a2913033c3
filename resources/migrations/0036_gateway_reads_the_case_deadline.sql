-- keel schema v36: the gateway reads the suspense cases' deadline.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- The gateway's /metrics is the one an SRE scrapes, so the gateway reads the
-- gauges of the database's state itself, among them suspense cases past
-- their deadline; the deadline is policy (ops_policy.case_deadline), which
-- the service login could not read.

GRANT SELECT ON ops_policy TO keel_gateway;
