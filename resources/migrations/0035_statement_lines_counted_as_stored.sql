-- keel schema v35: a statement's line count is what the database stored,
-- counted as its lines arrive.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- The import inserted a statement with the count of lines it had read, then
-- copied them. So it had to read the whole file before the server could
-- store any of it, and the two ran one after the other on a two-core
-- machine. Now the statement is inserted first and its lines stream in while
-- the file is still being read. The count is no longer the client's to say:
-- a new statement starts at 0 whatever it was given, and each COPY or INSERT
-- of its lines (only ever in its own transaction) adds what it stored.
--
-- The import's audit entry names the count, so it is written when the
-- import commits, with the count as stored (a deferred trigger that reads
-- the row again); the fees are booked the same way. Once either has run the
-- statement is sealed and takes no more lines, so that a writer who has one
-- fire early (SET CONSTRAINTS ... IMMEDIATE) cannot add lines the entry does
-- not count or whose fees are never booked.
--
-- Who imported a statement, when, and in which transaction are set here too,
-- whatever the insert said: a statement stamped with a later transaction
-- could otherwise be given lines by that transaction, after its import.
ALTER TABLE recon_statements ADD COLUMN sealed boolean NOT NULL DEFAULT false;

CREATE FUNCTION recon_statements_counted_here() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
BEGIN
    NEW.line_count := 0;
    NEW.sealed := false;
    NEW.created_xact := pg_current_xact_id();
    NEW.imported_by := session_user;
    NEW.imported_at := now();
    RETURN NEW;
END
$$;
REVOKE EXECUTE ON FUNCTION recon_statements_counted_here() FROM PUBLIC;
CREATE TRIGGER recon_statements_counted_here BEFORE INSERT ON recon_statements
    FOR EACH ROW EXECUTE FUNCTION recon_statements_counted_here();

-- Definer now: it adds to the statement's count, which the service login
-- may not update. Fired as a trigger only: nobody may attach it to a table
-- of their own.
CREATE OR REPLACE FUNCTION recon_lines_with_their_statement() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    stored record;
BEGIN
    FOR stored IN SELECT statement_id, channel, count(*) AS lines FROM added
                  GROUP BY statement_id, channel ORDER BY statement_id LOOP
        UPDATE recon_statements s SET line_count = s.line_count + stored.lines
        WHERE s.id = stored.statement_id AND s.channel = stored.channel
          AND s.created_xact = pg_current_xact_id() AND NOT s.sealed;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'a statement''s lines are written with it, never added later'
                USING ERRCODE = 'KL422';
        END IF;
    END LOOP;
    IF EXISTS (SELECT 1 FROM (SELECT DISTINCT currency FROM added) a
               WHERE NOT EXISTS (SELECT 1 FROM currencies c WHERE c.code = a.currency)) THEN
        RAISE EXCEPTION 'a statement line is in a currency keel does not know'
            USING ERRCODE = 'KL422';
    END IF;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION recon_lines_with_their_statement() FROM PUBLIC;

CREATE OR REPLACE FUNCTION recon_statements_audit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    counted integer;
BEGIN
    UPDATE recon_statements SET sealed = true WHERE id = NEW.id
    RETURNING line_count INTO counted;
    PERFORM audit('recon_import', 'recon_statement', NEW.id::text,
                  jsonb_build_object('channel', NEW.channel, 'format', NEW.format,
                                     'lines', counted,
                                     'sha256', encode(NEW.file_sha256, 'hex')));
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION recon_statements_audit() FROM PUBLIC;
DROP TRIGGER recon_statements_audit ON recon_statements;
CREATE CONSTRAINT TRIGGER recon_statements_audit AFTER INSERT ON recon_statements
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION recon_statements_audit();

-- As in 0025, and sealing the statement before it sums the fees.
CREATE OR REPLACE FUNCTION recon_book_fees() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    fees record;
    posting bigint;
    expense bigint;
    clearing bigint;
BEGIN
    UPDATE recon_statements SET sealed = true WHERE id = NEW.id;
    FOR fees IN SELECT currency, sum(fee) AS total FROM recon_lines
                WHERE statement_id = NEW.id GROUP BY currency HAVING sum(fee) <> 0
                ORDER BY currency LOOP
        INSERT INTO ledger_accounts (code, kind, currency)
            VALUES ('channel_fees:' || NEW.channel || ':' || fees.currency, 'expense',
                    fees.currency)
            ON CONFLICT (code) DO NOTHING;
        SELECT id INTO STRICT expense FROM ledger_accounts
            WHERE code = 'channel_fees:' || NEW.channel || ':' || fees.currency;
        SELECT id INTO STRICT clearing FROM ledger_accounts
            WHERE code = 'channel_clearing:' || fees.currency;
        INSERT INTO ledger_transactions (kind, description, recon_statement_id)
            VALUES ('channel_fee', 'fees of statement ' || NEW.id, NEW.id)
            RETURNING id INTO posting;
        INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
            VALUES (posting, expense, fees.currency, fees.total),
                   (posting, clearing, fees.currency, -fees.total);
    END LOOP;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION recon_book_fees() FROM PUBLIC;
