-- keel schema v48: what a withdrawal reopens waits for a run, and the
-- service login writes only what its own work needs.
-- Runs as keel_owner with search_path keel.
--
-- Found by a review of the repair paths under the production roles:
--
-- 1. A break a withdrawal opened again still showed the amounts of lines
--    that were gone. Matched, accepted or fee-adjusted before its day ran
--    again, the decision stood on nothing: a match returned a parked line's
--    money to clearing and closed the case of a capture the channel never
--    reported, for good; a write-off of its case kept the run from
--    returning the line's parked money. Such a break now waits for a run of
--    its day (awaiting_run): no resolution of it or of its case is proposed
--    or run until one has. Breaks reopened before this migration are found
--    by the withdrawal's time stamp.
-- 2. The withdrawal found its breaks by the lines' own references. A line
--    a run judged under keel's reference because the channel's id named
--    keel's record (a Stripe row without keel's metadata) has its break
--    under keel's reference: it was neither opened again nor its fee claim
--    reversed. Those are found by the channel's id now, as the run finds them.
-- 3. The withdrawal listed its breaks before it waited for its days' runs
--    and for the breaks: breaks a run wrote meanwhile, and the counterpart
--    of a match that committed meanwhile, were left as they were. The list
--    is made again once each is held; and since a run of another day reads
--    the lines of a reference on any day, a withdrawal now waits for every
--    run of its channel to end (the runs share a lock it takes alone).
-- 4. The service login could insert a statement already marked withdrawn,
--    whose lines no person could then withdraw; the insert now clears that.
-- 5. The service login could insert a case of any status, break and amount:
--    a case naming a break is closed by that break's run, which returned the
--    case's amount from suspense whatever its posting had parked. The login
--    now writes only the columns a saga's park writes, and a case it opens
--    holds exactly what its own posting of this transaction parked.

ALTER TABLE recon_breaks ADD COLUMN awaiting_run boolean NOT NULL DEFAULT false;

-- A run that writes a break has judged it on the lines there are now; one
-- it no longer finds is resolved by them.
CREATE FUNCTION recon_breaks_judged_by_run() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
BEGIN
    IF NEW.last_run_id IS DISTINCT FROM OLD.last_run_id
       OR (NEW.status = 'resolved' AND OLD.status <> 'resolved') THEN
        NEW.awaiting_run := false;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER recon_breaks_judged_by_run BEFORE UPDATE ON recon_breaks
    FOR EACH ROW EXECUTE FUNCTION recon_breaks_judged_by_run();

-- The breaks of keel's records that a statement's lines name by the
-- channel's own id, where exactly one record has that id (as
-- RecordsOfChannelReferences finds them for a run).
CREATE FUNCTION lines_named_by_channel_id(statement bigint)
RETURNS TABLE (kind text, reference text)
LANGUAGE sql STABLE SET search_path = keel, pg_temp AS $$
    SELECT 'payment', min(c.public_id) FROM recon_lines l
    JOIN charges c ON c.channel = l.channel AND c.channel_reference = l.channel_reference
    WHERE l.statement_id = statement AND l.kind = 'payment'
    GROUP BY l.channel_reference HAVING count(DISTINCT c.id) = 1
    UNION ALL
    SELECT 'refund', min(r.public_id) FROM recon_lines l
    JOIN refunds r ON r.channel = l.channel AND r.channel_reference = l.channel_reference
    WHERE l.statement_id = statement AND l.kind = 'refund'
    GROUP BY l.channel_reference HAVING count(DISTINCT r.id) = 1
$$;
REVOKE EXECUTE ON FUNCTION lines_named_by_channel_id(bigint) FROM PUBLIC;

-- The breaks a statement's lines bear on, by the lines' references or by
-- the channel's ids that name keel's records, and the breaks a person
-- matched to them.
CREATE FUNCTION breaks_bearing_on(stored recon_statements) RETURNS bigint[]
LANGUAGE sql STABLE SET search_path = keel, pg_temp AS $$
    WITH direct AS (
        SELECT b.id, b.resolution FROM recon_breaks b
        WHERE b.channel = stored.channel
          AND (b.kind, b.reference) IN (SELECT l.kind, l.reference FROM recon_lines l
                                        WHERE l.statement_id = stored.id
                                        UNION
                                        SELECT * FROM lines_named_by_channel_id(stored.id)))
    SELECT ARRAY(SELECT id FROM direct
                 UNION
                 SELECT (resolution ->> 'counterpart')::bigint FROM direct
                 WHERE resolution ->> 'kind' = 'recon_break.match'
                 ORDER BY 1)
$$;
REVOKE EXECUTE ON FUNCTION breaks_bearing_on(recon_statements) FROM PUBLIC;

-- What a withdrawal of `stored` changes, held before it changes anything:
-- the days of its lines and breaks (advisory locks, in the order runs take
-- them, so that no run reads the lines half withdrawn), then its breaks in
-- id order. A run that wrote breaks of these lines while this waited for
-- its day has committed them once the day is held, so the breaks are listed
-- again until their days are all held; a match that committed while this
-- waited for the breaks names a counterpart, taken too (its day reported,
-- its run waiting on the break).
CREATE FUNCTION hold_what_a_withdrawal_touches(stored recon_statements, OUT touched bigint[],
                                               OUT days date[])
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
DECLARE
    held date[] := '{}';
    day  date;
    more bigint[];
BEGIN
    days := ARRAY(SELECT DISTINCT (l.occurred_at AT TIME ZONE c.time_zone)::date
                  FROM recon_lines l JOIN recon_channels c ON c.channel = l.channel
                  WHERE l.statement_id = stored.id);
    LOOP
        touched := breaks_bearing_on(stored);
        days := ARRAY(SELECT DISTINCT d FROM unnest(days || ARRAY(
                          SELECT b.business_date FROM recon_breaks b WHERE b.id = ANY(touched))) d
                      ORDER BY d);
        EXIT WHEN days <@ held;
        FOREACH day IN ARRAY days LOOP
            CONTINUE WHEN day = ANY(held);
            PERFORM pg_advisory_xact_lock(hashtext('keel.recon:' || stored.channel),
                                          day - date '2000-01-01');
        END LOOP;
        held := days;
    END LOOP;
    PERFORM 1 FROM recon_breaks b WHERE b.id = ANY(touched) ORDER BY b.id
    FOR NO KEY UPDATE OF b;
    LOOP
        more := ARRAY(
            SELECT DISTINCT (b.resolution ->> 'counterpart')::bigint FROM recon_breaks b
            WHERE b.id = ANY(touched) AND b.resolution ->> 'kind' = 'recon_break.match'
              AND NOT (b.resolution ->> 'counterpart')::bigint = ANY(touched));
        EXIT WHEN cardinality(more) = 0;
        touched := touched || more;
        PERFORM 1 FROM recon_breaks b WHERE b.id = ANY(more) ORDER BY b.id
        FOR NO KEY UPDATE OF b;
        days := ARRAY(SELECT DISTINCT d FROM unnest(days || ARRAY(
                          SELECT b.business_date FROM recon_breaks b WHERE b.id = ANY(more))) d
                      ORDER BY d);
    END LOOP;
END
$$;
REVOKE EXECUTE ON FUNCTION hold_what_a_withdrawal_touches(recon_statements) FROM PUBLIC;

-- As migration 0047 wrote it, with what it touches found and held by
-- hold_what_a_withdrawal_touches(), and each break it opens again marked to
-- wait for its day's run.
CREATE OR REPLACE FUNCTION execute_statement_withdrawal(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    target  jsonb := proposal.targets -> 0;
    stored  recon_statements;
    version text;
    days    date[];
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
    -- No run of the channel is under way: a run reads lines of other days
    -- than its own, whose breaks this could not know to wait for.
    PERFORM pg_advisory_xact_lock(hashtext('keel.recon.runs:' || stored.channel), 0);
    SELECT h.touched, h.days INTO touched, days FROM hold_what_a_withdrawal_touches(stored) h;
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
        resolved_at = NULL, resolution = NULL, raised_at = now(), awaiting_run = true
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

-- A person decides on a break only as a run last found it.
CREATE OR REPLACE FUNCTION break_resolution_problem(kind text, targets jsonb, payload jsonb)
RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    waiting bigint;
BEGIN
    SELECT b.id INTO waiting FROM recon_breaks b
    JOIN jsonb_array_elements(targets) t ON t ->> 'id' ~ '^[1-9][0-9]{0,17}$'
                                        AND b.id = (t ->> 'id')::bigint
    WHERE b.awaiting_run ORDER BY b.id LIMIT 1;
    IF FOUND THEN
        RETURN format('break %s bears on lines of a statement withdrawn since its day last ran: '
                      'run the day again, then decide on what it finds', waiting);
    END IF;
    IF kind = 'recon_break.take_back' THEN
        RETURN take_back_problem(targets, payload);
    END IF;
    RETURN break_resolution_problem_of_0026(kind, targets, payload);
END
$$;

REVOKE EXECUTE ON FUNCTION break_resolution_problem(text, jsonb, jsonb) FROM PUBLIC;

-- A statement is inserted as imported now: never withdrawn already.
CREATE OR REPLACE FUNCTION recon_statements_counted_here() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
BEGIN
    NEW.line_count := 0;
    NEW.sealed := false;
    NEW.created_xact := pg_current_xact_id();
    NEW.imported_by := session_user;
    NEW.imported_at := now();
    NEW.withdrawn_at := NULL;
    NEW.withdrawn_by_action := NULL;
    RETURN NEW;
END
$$;

-- The service login opens a saga's case and nothing else: the columns a
-- park writes. A case of a break, a closed case, a case with its own
-- resolution are written by keel's own functions only.
REVOKE INSERT ON suspense_cases FROM keel_gateway;
GRANT INSERT (saga_id, charge_id, currency, amount, reason, ledger_transaction_id)
    ON suspense_cases TO keel_gateway;

-- A case opened by a login that does not own the table holds exactly what
-- its own posting, written in this transaction for the case's charge and
-- held by no other case, put into suspense in the case's currency; a case
-- without a posting holds nothing. (Entries added to that posting later in
-- the transaction are not seen here: keel audit ledger reports a case whose
-- posting parked another amount.) keel's own
-- functions (which run as the owner) post and open in one go, as checked by
-- their tests. Invoker rights, so that current_user is the inserting role.
CREATE FUNCTION suspense_cases_hold_their_posting() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
DECLARE
    parked bigint;
BEGIN
    IF pg_has_role(current_user, (SELECT c.relowner FROM pg_class c
                                  WHERE c.oid = 'keel.suspense_cases'::regclass), 'MEMBER') THEN
        RETURN NEW;
    END IF;
    IF NEW.ledger_transaction_id IS NULL THEN
        parked := 0;
    ELSE
        SELECT -sum(e.amount) INTO parked
        FROM ledger_transactions t
        JOIN ledger_entries e ON e.transaction_id = t.id AND e.currency = NEW.currency
        JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'suspense'
        WHERE t.id = NEW.ledger_transaction_id AND t.kind = 'suspense_in'
          AND t.charge_id IS NOT DISTINCT FROM NEW.charge_id
          AND t.written_in = pg_current_xact_id()
          AND NOT EXISTS (SELECT 1 FROM suspense_cases k
                          WHERE k.ledger_transaction_id = NEW.ledger_transaction_id);
    END IF;
    IF parked IS DISTINCT FROM NEW.amount THEN
        RAISE EXCEPTION 'a case holds what its own posting of this transaction parked '
                        '(posting %, % parked, % claimed)',
                        coalesce(NEW.ledger_transaction_id::text, 'none'),
                        coalesce(parked::text, 'nothing'), NEW.amount
            USING ERRCODE = 'KL422', COLUMN = 'amount';
    END IF;
    RETURN NEW;
END
$$;
REVOKE EXECUTE ON FUNCTION suspense_cases_hold_their_posting() FROM PUBLIC;
CREATE TRIGGER suspense_cases_hold_their_posting BEFORE INSERT ON suspense_cases
    FOR EACH ROW EXECUTE FUNCTION suspense_cases_hold_their_posting();

-- A case of a break that waits for a run is not settled before that run
-- either: a write-off or an adjustment of a withdrawn line's parked money
-- would resolve the break and keep the run from returning the money.
CREATE FUNCTION cases_awaiting_run(targets jsonb) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT format('case %s is break %s''s, which bears on lines of a statement withdrawn since '
                  'its day last ran: run the day again, then settle the case', k.id, b.id)
    FROM suspense_cases k
    JOIN recon_breaks b ON b.id = k.recon_break_id AND b.awaiting_run
    JOIN jsonb_array_elements(targets) t
      ON k.id = CASE WHEN t ->> 'id' ~ '^[0-9]{1,18}$' THEN (t ->> 'id')::bigint END
    ORDER BY k.id LIMIT 1
$$;
REVOKE EXECUTE ON FUNCTION cases_awaiting_run(jsonb) FROM PUBLIC;

CREATE FUNCTION operator_actions_check_case_awaits_no_run() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    problem text;
BEGIN
    IF NEW.kind IN ('case.adjust', 'case.write_off', 'case.give_back') THEN
        problem := cases_awaiting_run(NEW.targets);
        IF problem IS NOT NULL THEN
            RAISE EXCEPTION '%', problem USING ERRCODE = 'KL422', COLUMN = 'targets';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
REVOKE EXECUTE ON FUNCTION operator_actions_check_case_awaits_no_run() FROM PUBLIC;
-- Named to sort after operator_actions_admit, which checks the target list's shape.
CREATE TRIGGER operator_actions_check_case_awaits_no_run BEFORE INSERT ON operator_actions
    FOR EACH ROW EXECUTE FUNCTION operator_actions_check_case_awaits_no_run();

-- The breaks of the cases a proposal names, locked as migration 0046 locks
-- them; then each target refused if one of those breaks waits for a run, or
-- NULL to go on. Checked again here because a proposal approved before the
-- withdrawal names cases the withdrawal did not change.
CREATE FUNCTION hold_breaks_of_cases_judged(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    problem text;
BEGIN
    PERFORM lock_breaks_of_target_cases(proposal);
    problem := cases_awaiting_run(proposal.targets);
    RETURN CASE WHEN problem IS NOT NULL THEN
        (SELECT jsonb_agg(jsonb_build_object('id', t ->> 'id', 'outcome', 'not_allowed',
                                             'message', problem))
         FROM jsonb_array_elements(proposal.targets) t) END;
END
$$;
REVOKE EXECUTE ON FUNCTION hold_breaks_of_cases_judged(operator_actions) FROM PUBLIC;

-- As migration 0046 wrote them, with that check.
CREATE OR REPLACE FUNCTION execute_give_back(proposal operator_actions) RETURNS jsonb
LANGUAGE sql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT coalesce(hold_breaks_of_cases_judged(proposal), give_back_with_break_held(proposal));
$$;

CREATE OR REPLACE FUNCTION execute_case_resolution(proposal operator_actions) RETURNS jsonb
LANGUAGE sql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT coalesce(hold_breaks_of_cases_judged(proposal),
                    case_resolution_with_break_held(proposal));
$$;

-- Breaks a withdrawal opened again before this migration, whose day has not
-- run since: the withdrawal stamped them as it stamped its statement.
UPDATE recon_breaks b SET awaiting_run = true
FROM recon_runs r
WHERE r.id = b.last_run_id AND b.status <> 'resolved' AND b.raised_at > r.run_at
  AND EXISTS (SELECT 1 FROM recon_statements s
              WHERE s.channel = b.channel AND s.withdrawn_at = b.raised_at);
