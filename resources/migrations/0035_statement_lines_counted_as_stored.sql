-- keel schema v35: a statement's line count is what the database stored,
-- counted as its lines arrive.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- The import inserted a statement with the count of lines it had read, then
-- copied them. So it had to read the whole file before the server could
-- store any of it, and the two ran one after the other on a two-core
-- machine: at a million lines, eight seconds of storing waited on five of
-- reading. Now the statement is inserted first and its lines stream in while
-- the file is still being read. The count is no longer the client's to say:
-- a new statement starts at 0 whatever it was given, and each COPY or INSERT
-- of its lines (only ever in its own transaction) adds what it stored.
--
-- The import's audit entry names the count, so it is written when the
-- import commits, with the count as stored (a deferred trigger that reads
-- the row again).
CREATE FUNCTION recon_statements_counted_here() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
BEGIN
    NEW.line_count := 0;
    RETURN NEW;
END
$$;
CREATE TRIGGER recon_statements_counted_here BEFORE INSERT ON recon_statements
    FOR EACH ROW EXECUTE FUNCTION recon_statements_counted_here();

-- Definer now: it adds to the statement's count, which the service login
-- may not update.
CREATE OR REPLACE FUNCTION recon_lines_with_their_statement() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    stored record;
BEGIN
    FOR stored IN SELECT statement_id, channel, count(*) AS lines FROM added
                  GROUP BY statement_id, channel ORDER BY statement_id LOOP
        UPDATE recon_statements s SET line_count = s.line_count + stored.lines
        WHERE s.id = stored.statement_id AND s.channel = stored.channel
          AND s.created_xact = pg_current_xact_id();
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

CREATE OR REPLACE FUNCTION recon_statements_audit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    counted integer;
BEGIN
    SELECT line_count INTO counted FROM recon_statements WHERE id = NEW.id;
    PERFORM audit('recon_import', 'recon_statement', NEW.id::text,
                  jsonb_build_object('channel', NEW.channel, 'format', NEW.format,
                                     'lines', counted,
                                     'sha256', encode(NEW.file_sha256, 'hex')));
    RETURN NULL;
END
$$;
DROP TRIGGER recon_statements_audit ON recon_statements;
CREATE CONSTRAINT TRIGGER recon_statements_audit AFTER INSERT ON recon_statements
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION recon_statements_audit();
