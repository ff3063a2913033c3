-- Withdrawing a statement imported wrong (the wrong day's file, the wrong
-- channel's, one the channel then replaced), as a guarded action:
-- recon_statement.withdraw, proposed by keel_operator, approved by a second
-- person with keel_approver. Its lines move to recon_withdrawn_lines, kept as
-- imported, so that runs no longer read them and the corrected file's lines
-- are not refused as statement_overlap; the fees its import booked are
-- reversed in one balanced posting tied to the statement; the statement row
-- stays, marked withdrawn, on the audit chain. The days its lines fell on are
-- to be reconciled again (the action's outcome names them). Money a case
-- parked from one of its lines is the workbench's to return: a reconciliation
-- case may now post back to the channel clearing account it came from.
-- Runs as keel_owner with search_path keel.

-- A migration's rules are recorded in schema_migrations (see migration 0026).
ALTER TABLE action_kinds DISABLE TRIGGER action_kinds_audit;
INSERT INTO action_kinds (kind, target_type, moves_money, executor) VALUES
    ('recon_statement.withdraw', 'recon_statement', true, 'database');
ALTER TABLE action_kinds ENABLE TRIGGER action_kinds_audit;

ALTER TABLE recon_statements
    ADD COLUMN withdrawn_at timestamptz,
    ADD COLUMN withdrawn_by_action bigint REFERENCES operator_actions (id),
    ADD CONSTRAINT recon_statements_withdrawal
        CHECK ((withdrawn_at IS NULL) = (withdrawn_by_action IS NULL));

CREATE TABLE recon_withdrawn_lines (LIKE recon_lines);
ALTER TABLE recon_withdrawn_lines
    ADD PRIMARY KEY (statement_id, line_no),
    ADD FOREIGN KEY (statement_id) REFERENCES recon_statements (id);
GRANT SELECT ON recon_withdrawn_lines TO keel_operator, keel_approver, keel_auditor, keel_gateway;

CREATE FUNCTION execute_statement_withdrawal(proposal operator_actions) RETURNS jsonb
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
REVOKE EXECUTE ON FUNCTION execute_statement_withdrawal(operator_actions) FROM PUBLIC;

-- A withdrawal names one statement of the channel not withdrawn yet.
CREATE FUNCTION operator_actions_check_withdrawal() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    stored recon_statements;
BEGIN
    IF NEW.kind = 'recon_statement.withdraw' THEN
        IF jsonb_array_length(NEW.targets) <> 1
           OR NEW.targets -> 0 ->> 'id' !~ '^[1-9][0-9]{0,17}$' THEN
            RAISE EXCEPTION 'a withdrawal names exactly one statement by its number'
                USING ERRCODE = 'KL422', COLUMN = 'targets';
        END IF;
        SELECT * INTO stored FROM recon_statements
        WHERE id = (NEW.targets -> 0 ->> 'id')::bigint;
        IF stored.id IS NULL THEN
            RAISE EXCEPTION 'no statement %', NEW.targets -> 0 ->> 'id'
                USING ERRCODE = 'KL422', COLUMN = 'targets';
        END IF;
        IF stored.withdrawn_at IS NOT NULL THEN
            RAISE EXCEPTION 'statement % was withdrawn already', stored.id
                USING ERRCODE = 'KL422', COLUMN = 'targets';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER operator_actions_check_withdrawal BEFORE INSERT ON operator_actions
    FOR EACH ROW EXECUTE FUNCTION operator_actions_check_withdrawal();

CREATE OR REPLACE FUNCTION run_database_action(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    CASE proposal.kind
        WHEN 'outbox.resend' THEN RETURN execute_outbox_resend(proposal);
        WHEN 'notification.resend' THEN RETURN execute_notification_resend(proposal);
        WHEN 'case.adjust', 'case.write_off' THEN RETURN execute_case_resolution(proposal);
        WHEN 'recon_break.match', 'recon_break.accept', 'recon_break.fee_adjust' THEN
            RETURN execute_break_resolution(proposal);
        WHEN 'recon_statement.withdraw' THEN RETURN execute_statement_withdrawal(proposal);
    END CASE;
END
$$;

-- A reconciliation case's money came from the channel clearing account: a
-- person may return it there (a withdrawn statement's line, a break the
-- channel explains), as a case of a charge or a channel's notice may.
CREATE OR REPLACE FUNCTION adjustment_problem(case_id bigint, postings jsonb) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    held suspense_cases;
    merchant bigint;
    posting jsonb;
    account ledger_accounts;
    total bigint := 0;
    returned bigint := 0; -- what a reconciliation case's postings take off clearing
BEGIN
    SELECT * INTO held FROM suspense_cases WHERE id = case_id;
    IF NOT FOUND THEN
        RETURN format('no suspense case %s', case_id);
    END IF;
    merchant := held.merchant_id;
    IF jsonb_typeof(postings) IS DISTINCT FROM 'array' THEN
        RETURN 'payload.postings must be a list of {"account", "amount"}';
    END IF;
    IF held.amount = 0 AND jsonb_array_length(postings) > 0 THEN
        RETURN format('case %s holds no money: an adjustment posts nothing', case_id);
    END IF;
    IF held.amount > 0 AND jsonb_array_length(postings) = 0 THEN
        RETURN 'payload.postings is empty';
    END IF;
    FOR posting IN SELECT * FROM jsonb_array_elements(postings) LOOP
        IF jsonb_typeof(posting -> 'amount') IS DISTINCT FROM 'number'
           OR (posting ->> 'amount') !~ '^-?[0-9]{1,18}$' OR (posting ->> 'amount')::bigint = 0 THEN
            RETURN format('posting %s: amount must be a non-zero whole number of minor units',
                          posting);
        END IF;
        SELECT * INTO account FROM ledger_accounts WHERE code = posting ->> 'account';
        IF NOT FOUND THEN
            RETURN format('posting %s: no ledger account %s', posting, posting ->> 'account');
        END IF;
        IF account.kind = 'suspense' THEN
            RETURN format('posting %s: the suspense leg is added by keel, not proposed', posting);
        END IF;
        IF account.currency <> held.currency THEN
            RETURN format('posting %s: account %s is in %s, the case in %s', posting,
                          account.code, account.currency, held.currency);
        END IF;
        IF NOT (account.case_adjustable
                OR (merchant IS NOT NULL AND account.merchant_id = merchant)
                OR ((held.charge_id IS NOT NULL OR held.channel_notification_id IS NOT NULL
                     OR held.recon_break_id IS NOT NULL)
                    AND account.code = 'channel_clearing:' || held.currency))
        THEN
            RETURN format('posting %s: account %s is outside case %s (its merchant''s accounts, '
                          'its charge''s or its break''s channel clearing account and keel''s '
                          'fee and loss accounts are)', posting, account.code, case_id);
        END IF;
        IF held.recon_break_id IS NOT NULL AND held.charge_id IS NULL
           AND account.code = 'channel_clearing:' || held.currency THEN
            returned := returned - (posting ->> 'amount')::bigint;
        END IF;
        total := total + (posting ->> 'amount')::bigint;
    END LOOP;
    -- A reconciliation case gives back to clearing at most what it parked
    -- there, and never adds to it.
    IF returned < 0 OR returned > held.amount THEN
        RETURN format('the postings take %s %s off the clearing account; a reconciliation case '
                      'returns between 0 and what it holds (%s)', returned, held.currency,
                      held.amount);
    END IF;
    IF total <> -held.amount THEN
        RETURN format('the postings sum to %s %s; with the suspense leg of %s they must come to '
                      'zero (they should sum to %s)', total, held.currency, held.amount,
                      -held.amount);
    END IF;
    RETURN NULL;
END
$$;
