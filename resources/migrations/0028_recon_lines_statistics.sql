-- keel schema v28: the planner learns of a statement's lines when they land.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- A day's statement is often most of what recon_lines holds when it arrives,
-- and the day's run reads it back within minutes: planned on statistics that
-- predate it, that read probes the table once per line. Autovacuum's analyze
-- comes too late, and the service login that imports may not ANALYZE a table
-- it does not own. A VACUUM holding the table makes it give up rather than
-- keep an import waiting: the statement is stored by then.
CREATE FUNCTION recon_lines_analyze() RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp SET lock_timeout = '2s' AS $$
BEGIN
    ANALYZE recon_lines;
END
$$;
REVOKE ALL ON FUNCTION recon_lines_analyze() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION recon_lines_analyze() TO keel_gateway;
