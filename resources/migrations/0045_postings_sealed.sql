-- keel schema v45: a posting is sealed once the transaction that wrote it
-- commits. Runs as keel_owner with search_path keel (set by the migrator).
--
-- Entries were append-only and every posting balanced at commit, but nothing
-- tied an entry to the transaction that wrote its posting. The service login
-- may insert entries, so it could add a balanced pair to a posting written
-- long ago: to a channel_takeback, say, lowering what the charge counts as
-- taken back without the two people that posting needed, or to a capture,
-- moving money under a posting whose checks it never passed. Now each posting
-- records the database transaction that wrote it, set here whatever the
-- writer supplies, and an entry is refused unless its posting was written by
-- the transaction inserting the entry. A savepoint does not change the
-- top-level transaction id, so functions with exception blocks still post.
-- Postings written before this migration have none recorded: sealed.
--
-- The transaction's start time is recorded with its id: a database restored
-- from a logical dump counts transaction ids again from where a new cluster
-- starts, and keeps the stamps it was given, so an id alone would one day
-- name a restored posting again. The time it started never comes back.

ALTER TABLE ledger_transactions ADD COLUMN written_in xid8,
                                ADD COLUMN written_at timestamptz;

CREATE FUNCTION ledger_transaction_stamp() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
BEGIN
    NEW.written_in := pg_current_xact_id();
    NEW.written_at := now(); -- the transaction's start, as the check below reads it
    RETURN NEW;
END
$$;
REVOKE EXECUTE ON FUNCTION ledger_transaction_stamp() FROM PUBLIC;
-- Named to fire after the other BEFORE INSERT triggers (they fire by name).
CREATE TRIGGER zz_ledger_transactions_stamp BEFORE INSERT ON ledger_transactions
    FOR EACH ROW EXECUTE FUNCTION ledger_transaction_stamp();

-- Once the row exists its stamp cannot change: no role but the owner may
-- update ledger_transactions, and the owner cannot log in.
CREATE TRIGGER ledger_transactions_immutable BEFORE UPDATE OR DELETE ON ledger_transactions
    FOR EACH ROW EXECUTE FUNCTION reject_change();

-- One check per statement over the rows it added. An entry passes only when
-- its posting is found, visible and stamped by this transaction: one the
-- check cannot see is refused, not let through.
CREATE FUNCTION ledger_entries_check_sealed() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
DECLARE
    late bigint;
BEGIN
    SELECT a.transaction_id INTO late
      FROM added a
     WHERE NOT EXISTS (SELECT 1 FROM ledger_transactions t
                       WHERE t.id = a.transaction_id
                         AND t.written_in = pg_current_xact_id() AND t.written_at = now())
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'ledger transaction % is sealed: its entries were written when it was',
            late
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION ledger_entries_check_sealed() FROM PUBLIC;
CREATE TRIGGER ledger_entries_sealed AFTER INSERT ON ledger_entries
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_check_sealed();
