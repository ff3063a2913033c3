-- keel schema v49: a run is verified on what it read, not on what is true now.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- `keel recon verify` recomputed a run from the books and statements as they
-- stood at the time of the check. A run past the settlement lag parks money
-- in the same transaction it records its result, and that posting alone
-- changed the day's recomputation: the runs that moved money were the ones
-- that could never be verified, and so was every run once a later file
-- reported a line of its day. Each run now keeps the snapshot it read in,
-- and verification reads the postings and statement lines that snapshot saw:
-- postings by the transaction that wrote them (written_in, migration 0045),
-- lines by their statement's import and, for a statement withdrawn since,
-- its withdrawal's transaction, recorded here.

ALTER TABLE recon_runs ADD COLUMN snapshot pg_snapshot;

-- The service inserts runs; what it read is the database's to record. In the
-- run's REPEATABLE READ transaction this is the snapshot its reads used.
CREATE FUNCTION recon_runs_keep_their_snapshot() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
BEGIN
    NEW.snapshot := pg_current_snapshot();
    RETURN NEW;
END
$$;
REVOKE EXECUTE ON FUNCTION recon_runs_keep_their_snapshot() FROM PUBLIC;
CREATE TRIGGER recon_runs_keep_their_snapshot BEFORE INSERT ON recon_runs
    FOR EACH ROW EXECUTE FUNCTION recon_runs_keep_their_snapshot();

ALTER TABLE recon_statements ADD COLUMN withdrawn_xact xid8;

-- Named to sort after recon_statements_counted_here, which clears a
-- withdrawal on insert.
CREATE FUNCTION recon_statements_withdrawal_stamped() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
BEGIN
    NEW.withdrawn_xact := CASE
        WHEN NEW.withdrawn_at IS NULL THEN NULL
        WHEN TG_OP = 'UPDATE' AND OLD.withdrawn_at IS NOT NULL THEN OLD.withdrawn_xact
        ELSE pg_current_xact_id() END;
    RETURN NEW;
END
$$;
REVOKE EXECUTE ON FUNCTION recon_statements_withdrawal_stamped() FROM PUBLIC;
CREATE TRIGGER recon_statements_withdrawal_stamped BEFORE INSERT OR UPDATE ON recon_statements
    FOR EACH ROW EXECUTE FUNCTION recon_statements_withdrawal_stamped();
