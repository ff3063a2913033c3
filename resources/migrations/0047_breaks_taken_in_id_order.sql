-- keel schema v47: every writer of breaks takes them in the order of their
-- ids. Runs as keel_owner with search_path keel (set by the migrator).
--
-- A match takes its two breaks in id order, and a case's resolution its
-- cases' breaks (migration 0046). Three writers did not:
-- - a run wrote its day's breaks in the order its result lists them (class,
--   kind, reference), so a person's match of two breaks of a day could hold
--   the lower while the run held the higher, each waiting for the other
--   until the database failed one; the run tried again by itself, but the
--   approved match had to be run again;
-- - recon_expire_acceptances took the breaks whose acceptance ran out in the
--   order the table's scan met them;
-- - a statement's withdrawal took the breaks its lines bear on, of any day,
--   in the order its update's scan met them.
-- Now each takes its breaks in id order before it writes or names any. The
-- lock is FOR NO KEY UPDATE, as the writes themselves take: no key changes,
-- and a posting that names a break (its foreign key) does not wait on it.

-- The run's recording, with the day's breaks taken first: those it may
-- change (every break of the day not resolved, and the resolved ones its
-- result raises again). A resolved break the result does not name is left
-- alone and not locked: only a run or a withdrawal of its day, which hold
-- the day's advisory lock, write one. recon_record_run is kept as it was and
-- called from here only: its body names its parameters by the function's
-- name, which a rename would break. A result that is not a document of
-- breaks is refused by recon_record_run, as before.
CREATE FUNCTION recon_record_run_in_break_order(run_channel text, run_date date, result text,
                                                day_lines integer, OUT run_id bigint,
                                                OUT cases_opened integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    raised json;
BEGIN
    BEGIN
        raised := result::json -> 'breaks';
    EXCEPTION WHEN invalid_text_representation THEN
        raised := NULL;
    END;
    IF json_typeof(raised) IS DISTINCT FROM 'array' THEN
        raised := '[]';
    END IF;
    PERFORM 1 FROM recon_breaks b
    WHERE b.channel = run_channel AND b.business_date = run_date
      AND (b.status <> 'resolved'
           OR (b.class, b.kind, b.reference) IN (
               SELECT x ->> 'class', x ->> 'kind', x ->> 'reference'
               FROM json_array_elements(raised) x))
    ORDER BY b.id
    FOR NO KEY UPDATE OF b;
    SELECT r.run_id, r.cases_opened INTO run_id, cases_opened
    FROM recon_record_run(run_channel, run_date, result, day_lines) r;
END
$$;
REVOKE EXECUTE ON FUNCTION recon_record_run_in_break_order(text, date, text, integer)
    FROM PUBLIC;
GRANT EXECUTE ON FUNCTION recon_record_run_in_break_order(text, date, text, integer)
    TO keel_gateway;
REVOKE EXECUTE ON FUNCTION recon_record_run(text, date, text, integer) FROM keel_gateway;

-- A break whose acceptance a person changed while this waited for it is
-- left as the person left it: the lock's wait re-reads the row.
CREATE OR REPLACE FUNCTION recon_expire_acceptances() RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    WITH due AS (
        SELECT id FROM recon_breaks
        WHERE status = 'accepted' AND accepted_until <= now()
        ORDER BY id
        FOR NO KEY UPDATE),
    ended AS (
        UPDATE recon_breaks b SET status = 'persisting', resolution = NULL, raised_at = now()
        FROM due WHERE b.id = due.id AND b.status = 'accepted' AND b.accepted_until <= now()
        RETURNING 1)
    SELECT count(*)::integer FROM ended;
$$;

-- The withdrawal as migration 0027 wrote it, with its breaks taken after
-- the days' advisory locks (a run holds its day's lock and then its breaks)
-- and before its first write.
CREATE OR REPLACE FUNCTION execute_statement_withdrawal(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    target  jsonb := proposal.targets -> 0;
    stored  recon_statements;
    version text;
    days    date[];
    day     date;
    touched bigint[];
    held    text;
    moved   record;
    posted  bigint;
    claim_back bigint;
    claim_of   bigint;
BEGIN
    IF jsonb_array_length(proposal.targets) <> 1
       OR target ->> 'id' !~ '^[1-9][0-9]{0,17}$' THEN
        RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id', 'outcome', 'missing'));
    END IF;
    SELECT s.xmin::text INTO version FROM recon_statements s
    WHERE s.id = (target ->> 'id')::bigint FOR UPDATE;
    SELECT * INTO stored FROM recon_statements WHERE id = (target ->> 'id')::bigint;
    IF stored.id IS NULL THEN
        RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id', 'outcome', 'missing'));
    END IF;
    IF version <> target ->> 'version' OR stored.withdrawn_at IS NOT NULL THEN
        RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id', 'outcome', 'changed'));
    END IF;
    -- The breaks its lines bear on (and what a person matched to them), and
    -- every day they and the lines belong to: each day's run is waited for,
    -- in the order runs take them, so none reads these lines half withdrawn.
    touched := ARRAY(
        SELECT b.id FROM recon_breaks b
        WHERE b.channel = stored.channel
          AND (b.kind, b.reference) IN (SELECT l.kind, l.reference FROM recon_lines l
                                        WHERE l.statement_id = stored.id));
    touched := touched || ARRAY(
        SELECT (b.resolution ->> 'counterpart')::bigint FROM recon_breaks b
        WHERE b.id = ANY(touched) AND b.resolution ->> 'kind' = 'recon_break.match');
    days := ARRAY(
        SELECT DISTINCT d FROM (
            SELECT (l.occurred_at AT TIME ZONE c.time_zone)::date AS d
            FROM recon_lines l JOIN recon_channels c ON c.channel = l.channel
            WHERE l.statement_id = stored.id
            UNION SELECT b.business_date FROM recon_breaks b WHERE b.id = ANY(touched)) x
        ORDER BY d);
    FOREACH day IN ARRAY days LOOP
        PERFORM pg_advisory_xact_lock(hashtext('keel.recon:' || stored.channel),
                                      day - date '2000-01-01');
    END LOOP;
    -- Then the breaks, in id order, before anything names or changes them.
    PERFORM 1 FROM recon_breaks b WHERE b.id = ANY(touched) ORDER BY b.id
    FOR NO KEY UPDATE OF b;
    INSERT INTO recon_withdrawn_lines SELECT * FROM recon_lines WHERE statement_id = stored.id;
    DELETE FROM recon_lines WHERE statement_id = stored.id;
    -- The fees its import booked, reversed per account.
    FOR moved IN SELECT e.account_id, e.currency, sum(e.amount) AS amount
                 FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
                 WHERE t.recon_statement_id = stored.id AND t.kind = 'channel_fee'
                 GROUP BY e.account_id, e.currency HAVING sum(e.amount) <> 0
                 ORDER BY e.currency, e.account_id LOOP
        IF posted IS NULL THEN
            INSERT INTO ledger_transactions (kind, description, recon_statement_id)
            VALUES ('channel_fee', format('statement %s withdrawn by action #%s: its fees back',
                                          stored.id, proposal.id), stored.id)
            RETURNING id INTO posted;
        END IF;
        INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
        VALUES (posted, moved.account_id, moved.currency, -moved.amount);
    END LOOP;
    -- Fee claims booked from its lines are reversed too, per break.
    FOR moved IN SELECT t.recon_break_id FROM ledger_transactions t
                 JOIN ledger_entries e ON e.transaction_id = t.id
                 WHERE t.recon_break_id = ANY(touched) AND t.kind = 'fee_adjustment'
                 GROUP BY t.recon_break_id, e.account_id HAVING sum(e.amount) <> 0
                 ORDER BY 1 LOOP
        CONTINUE WHEN claim_back IS NOT NULL AND claim_of = moved.recon_break_id;
        INSERT INTO ledger_transactions (kind, description, recon_break_id)
        VALUES ('fee_adjustment',
                format('statement %s withdrawn by action #%s: the fee claim of break %s back',
                       stored.id, proposal.id, moved.recon_break_id), moved.recon_break_id)
        RETURNING id INTO claim_back;
        claim_of := moved.recon_break_id;
        INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
        SELECT claim_back, e.account_id, e.currency, -sum(e.amount)
        FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
        WHERE t.recon_break_id = moved.recon_break_id AND t.kind = 'fee_adjustment'
          AND t.id <> claim_back
        GROUP BY e.account_id, e.currency HAVING sum(e.amount) <> 0;
    END LOOP;
    -- What a person decided on the strength of its lines no longer stands:
    -- each break is open again, to be judged by the next run of its day.
    UPDATE recon_breaks
    SET status = CASE WHEN status IN ('resolved', 'accepted') THEN 'persisting' ELSE status END,
        resolved_at = NULL, resolution = NULL, raised_at = now()
    WHERE id = ANY(touched);
    SELECT string_agg(k.id || ' (' || k.status || ', ' || k.amount || ' ' || k.currency || ')', ', '
                      ORDER BY k.id) INTO held
    FROM suspense_cases k WHERE k.recon_break_id = ANY(touched) AND k.amount > 0;
    UPDATE recon_statements SET withdrawn_at = now(), withdrawn_by_action = proposal.id
    WHERE id = stored.id;
    PERFORM audit('recon_withdraw', 'recon_statement', stored.id::text,
                  jsonb_build_object('channel', stored.channel, 'lines', stored.line_count,
                                     'sha256', encode(stored.file_sha256, 'hex'),
                                     'action', proposal.id, 'days', to_jsonb(days),
                                     'breaks_reopened', to_jsonb(touched)));
    RETURN jsonb_build_array(jsonb_build_object(
        'id', target ->> 'id', 'outcome', 'done', 'new_id', posted::text,
        'message', format('run %s again: %s', stored.channel,
                          coalesce(array_to_string(days, ' '), 'no days'))
                   || CASE WHEN held IS NULL THEN ''
                      ELSE format('; cases that parked money for its breaks: %s', held) END));
END
$$;
