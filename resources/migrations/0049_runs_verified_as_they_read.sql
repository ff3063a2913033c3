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
-- its withdrawal's transaction, recorded here; the channel's time zone,
-- settlement lag and fee rate as the run read them.
--
-- Transaction ids start again in a cluster restored from a logical dump
-- while the stamps keep their values: a run recorded before such a restore
-- cannot be told apart from what came after by ids, and keel recon verify
-- then recomputes it on today's data and says so.

-- What the run read besides lines and postings: its channel's rules then.
ALTER TABLE recon_runs ADD COLUMN snapshot pg_snapshot,
                       ADD COLUMN time_zone text,
                       ADD COLUMN settlement_lag interval,
                       ADD COLUMN fee_rate_ppm integer;

-- The service inserts runs; what it read is the database's to record. A run
-- reads its day in one REPEATABLE READ transaction, whose snapshot is the one
-- every statement of it, this one included, sees; in READ COMMITTED this
-- statement's snapshot would be a later one than the reads', so a run is
-- refused there (but for a superuser's session, which writes what it likes).
CREATE FUNCTION recon_runs_keep_their_snapshot() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
BEGIN
    IF current_setting('transaction_isolation') NOT IN ('repeatable read', 'serializable')
       AND current_setting('is_superuser') = 'off' THEN
        RAISE EXCEPTION 'a reconciliation run is recorded from a REPEATABLE READ transaction'
            USING ERRCODE = 'KL422';
    END IF;
    -- A transaction that wrote (or locked) before its first read has an id
    -- its own snapshot counts as seen, and verification would then count the
    -- run's own postings: such a run reads its day first.
    IF pg_visible_in_snapshot(pg_current_xact_id(), pg_current_snapshot())
       AND current_setting('is_superuser') = 'off' THEN
        RAISE EXCEPTION 'a reconciliation run reads its day before it writes anything'
            USING ERRCODE = 'KL422';
    END IF;
    NEW.snapshot := pg_current_snapshot();
    SELECT c.time_zone, c.settlement_lag, c.fee_rate_ppm
      INTO NEW.time_zone, NEW.settlement_lag, NEW.fee_rate_ppm
      FROM recon_channels c WHERE c.channel = NEW.channel;
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

-- The snapshot and the channel's rules are on the audit chain with the result.
CREATE OR REPLACE FUNCTION recon_runs_audit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    PERFORM audit('recon_run', 'recon_run', NEW.id::text,
                  jsonb_build_object('channel', NEW.channel, 'date', NEW.business_date,
                                     'matched', NEW.matched, 'breaks', NEW.breaks,
                                     'sha256', encode(NEW.result_sha256, 'hex'),
                                     'snapshot', NEW.snapshot::text,
                                     'time_zone', NEW.time_zone,
                                     'settlement_lag', NEW.settlement_lag::text,
                                     'fee_rate_ppm', NEW.fee_rate_ppm));
    RETURN NULL;
END
$$;

-- Which of keel's records a channel's id names is part of what a run reads
-- (a line under the channel's id is its record's). The service sets a
-- record's channel id when the channel answers, and may set it again; each
-- value is kept here with the transaction that set it, so that verification
-- reads the ids a run's snapshot saw, not ones set since (which could make a
-- run verify that did not read them). Ids set before v49 carry no
-- transaction and count as seen by every run. Only the triggers write here.
CREATE TABLE record_channel_references (
    id bigserial PRIMARY KEY,
    kind text NOT NULL CHECK (kind IN ('payment', 'refund')),
    record_id bigint NOT NULL,
    channel_reference text,
    set_in xid8 DEFAULT pg_current_xact_id()
);
CREATE INDEX record_channel_references_of_record
    ON record_channel_references (kind, record_id, id);
INSERT INTO record_channel_references (kind, record_id, channel_reference, set_in)
    SELECT 'payment', id, channel_reference, NULL::xid8 FROM charges
    WHERE channel_reference IS NOT NULL
    UNION ALL
    SELECT 'refund', id, channel_reference, NULL::xid8 FROM refunds
    WHERE channel_reference IS NOT NULL
    ORDER BY 1, 2;
GRANT SELECT ON record_channel_references
    TO keel_gateway, keel_operator, keel_approver, keel_auditor;

CREATE FUNCTION record_channel_reference_kept() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    -- A record loaded with the triggers off has no history: the id it had
    -- is kept first, as the back-fill keeps those from before v49, so that
    -- a run that read it still reads it.
    IF TG_OP = 'UPDATE' AND OLD.channel_reference IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM record_channel_references h
                       WHERE h.kind = TG_ARGV[0] AND h.record_id = OLD.id) THEN
        INSERT INTO record_channel_references (kind, record_id, channel_reference, set_in)
            VALUES (TG_ARGV[0], OLD.id, OLD.channel_reference, NULL);
    END IF;
    INSERT INTO record_channel_references (kind, record_id, channel_reference)
        VALUES (TG_ARGV[0], NEW.id, NEW.channel_reference);
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION record_channel_reference_kept() FROM PUBLIC;
CREATE TRIGGER charges_channel_reference_kept AFTER INSERT ON charges
    FOR EACH ROW WHEN (NEW.channel_reference IS NOT NULL)
    EXECUTE FUNCTION record_channel_reference_kept('payment');
CREATE TRIGGER charges_channel_reference_changed AFTER UPDATE OF channel_reference ON charges
    FOR EACH ROW WHEN (NEW.channel_reference IS DISTINCT FROM OLD.channel_reference)
    EXECUTE FUNCTION record_channel_reference_kept('payment');
CREATE TRIGGER refunds_channel_reference_kept AFTER INSERT ON refunds
    FOR EACH ROW WHEN (NEW.channel_reference IS NOT NULL)
    EXECUTE FUNCTION record_channel_reference_kept('refund');
CREATE TRIGGER refunds_channel_reference_changed AFTER UPDATE OF channel_reference ON refunds
    FOR EACH ROW WHEN (NEW.channel_reference IS DISTINCT FROM OLD.channel_reference)
    EXECUTE FUNCTION record_channel_reference_kept('refund');

-- A record's identity is what runs and their verification match by: its
-- row id (which its id history names), keel's id, its channel, its currency
-- and when it was made never change once written, but by a superuser (who
-- could switch the triggers off anyway).
CREATE FUNCTION record_identity_kept() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
BEGIN
    IF (NEW.id IS DISTINCT FROM OLD.id OR NEW.public_id IS DISTINCT FROM OLD.public_id
        OR NEW.channel IS DISTINCT FROM OLD.channel OR NEW.currency IS DISTINCT FROM OLD.currency
        OR NEW.created_at IS DISTINCT FROM OLD.created_at)
       AND current_setting('is_superuser') = 'off' THEN
        RAISE EXCEPTION '% %: its ids, channel, currency and creation do not change',
            TG_TABLE_NAME, OLD.public_id USING ERRCODE = 'KL422';
    END IF;
    RETURN NEW;
END
$$;
REVOKE EXECUTE ON FUNCTION record_identity_kept() FROM PUBLIC;
CREATE TRIGGER charges_identity_kept
    BEFORE UPDATE OF id, public_id, channel, currency, created_at ON charges
    FOR EACH ROW EXECUTE FUNCTION record_identity_kept();
CREATE TRIGGER refunds_identity_kept
    BEFORE UPDATE OF id, public_id, channel, currency, created_at ON refunds
    FOR EACH ROW EXECUTE FUNCTION record_identity_kept();
