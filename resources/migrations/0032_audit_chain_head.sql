-- keel schema v32: the audit chain's head is a row, so that a writer whose
-- snapshot is older than the chain fails as a serialization failure.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- audit_log_chain() took an advisory lock and then read the chain's last row.
-- In a READ COMMITTED transaction that read is fresh once the lock is held.
-- A reconciliation run, though, reads and writes in one REPEATABLE READ
-- transaction: its snapshot predates any row audited while it ran (a break
-- matched by hand, a statement imported), so it chained onto a stale
-- predecessor and failed on audit_log's UNIQUE (seq), SQLSTATE 23505, which
-- nothing retries. Updating a head row instead makes PostgreSQL report that
-- case as 40001, which the run retries from a fresh snapshot; in READ
-- COMMITTED the update waits for the previous writer and reads its head.
CREATE TABLE audit_chain_head (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    seq      bigint NOT NULL CHECK (seq >= 0),
    hash     bytea
);
-- A writer still on the old trigger must not commit after the head is read.
LOCK TABLE audit_log IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO audit_chain_head (seq, hash)
SELECT coalesce((SELECT seq FROM audit_log ORDER BY seq DESC LIMIT 1), 0),
       (SELECT hash FROM audit_log ORDER BY seq DESC LIMIT 1);
REVOKE ALL ON audit_chain_head FROM PUBLIC;
-- Readable by whoever reads the chain; written only by audit_log_chain().
GRANT SELECT ON audit_chain_head TO keel_auditor, keel_sre, keel_operator, keel_approver;

CREATE OR REPLACE FUNCTION audit_log_chain() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    NEW.actor := session_user;
    -- The head's row lock serialises writers until they commit, so two rows
    -- never claim the same predecessor and seq follows commit order.
    UPDATE audit_chain_head SET seq = seq + 1 RETURNING seq, hash INTO NEW.seq, NEW.prev_hash;
    NEW.at := clock_timestamp();
    NEW.hash := sha256(coalesce(NEW.prev_hash, '\x'::bytea) ||
                       convert_to(concat_ws(E'\x1f', NEW.seq::text,
                                            to_char(NEW.at AT TIME ZONE 'UTC',
                                                    'YYYY-MM-DD"T"HH24:MI:SS.US'),
                                            NEW.actor, NEW.action, NEW.object_type,
                                            NEW.object_id, NEW.detail::text), 'UTF8'));
    UPDATE audit_chain_head SET hash = NEW.hash;
    RETURN NEW;
END
$$;
