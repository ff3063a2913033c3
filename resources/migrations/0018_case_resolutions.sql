-- Resolving a suspense case with money in it, as guarded actions that move
-- money (keel_operator proposes, a keel_approver approves):
--  * case.adjust: a balanced ledger adjustment. The proposal's payload lists
--    the counter-postings {"account": code, "amount": minor units} in the
--    case's currency; execution adds the suspense leg that takes the case's
--    amount out of suspense, so the postings always sum to zero, and the
--    proposal is refused unless the counter-postings sum to minus the amount;
--  * case.write_off: the amount leaves suspense for the currency's write-off
--    account (suspense_write_off:CUR), with the reason on the record.
-- Both resolve the case at the version the proposer saw, once.
-- Runs as keel_owner with search_path keel.

INSERT INTO action_kinds (kind, target_type, moves_money, executor) VALUES
    ('case.adjust', 'suspense_case', true, 'database'),
    ('case.write_off', 'suspense_case', true, 'database');

INSERT INTO ledger_accounts (code, kind, currency)
    SELECT 'suspense_write_off:' || code, 'expense', code FROM currencies;

-- The counter-postings a case.adjust proposal carries, checked against its
-- case: known, non-suspense accounts of the case's currency, non-zero
-- amounts, and a sum that exactly clears the case's amount.
CREATE FUNCTION adjustment_problem(case_id bigint, postings jsonb) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    held suspense_cases;
    posting jsonb;
    account ledger_accounts;
    total bigint := 0;
BEGIN
    SELECT * INTO held FROM suspense_cases WHERE id = case_id;
    IF NOT FOUND THEN
        RETURN format('no suspense case %s', case_id);
    END IF;
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
        total := total + (posting ->> 'amount')::bigint;
    END LOOP;
    IF total <> -held.amount THEN
        RETURN format('the postings sum to %s %s; with the suspense leg of %s they must come to '
                      'zero (they should sum to %s)', total, held.currency, held.amount,
                      -held.amount);
    END IF;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION adjustment_problem(bigint, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION adjustment_problem(bigint, jsonb) TO keel_operator, keel_approver;

-- Proposals of case.adjust must balance before anyone is asked to approve.
CREATE FUNCTION operator_actions_check_adjustment() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    problem text;
BEGIN
    IF NEW.kind = 'case.adjust' THEN
        IF jsonb_array_length(NEW.targets) <> 1 OR NEW.targets -> 0 ->> 'id' !~ '^[0-9]{1,18}$' THEN
            RAISE EXCEPTION 'an adjustment resolves exactly one case'
                USING ERRCODE = 'KL422', COLUMN = 'targets';
        END IF;
        problem := adjustment_problem((NEW.targets -> 0 ->> 'id')::bigint,
                                      NEW.payload -> 'postings');
        IF problem IS NOT NULL THEN
            RAISE EXCEPTION 'the adjustment does not balance: %', problem
                USING ERRCODE = 'KL422', COLUMN = 'payload';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER operator_actions_check_adjustment BEFORE INSERT ON operator_actions
    FOR EACH ROW EXECUTE FUNCTION operator_actions_check_adjustment();

-- Resolves one case of a case.adjust or case.write_off proposal.
CREATE FUNCTION execute_case_resolution(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    target   jsonb := proposal.targets -> 0;
    held     suspense_cases;
    version  text;
    postings jsonb;
    posted   bigint;
    posting  jsonb;
BEGIN
    IF jsonb_array_length(proposal.targets) <> 1 OR target ->> 'id' !~ '^[0-9]{1,18}$' THEN
        RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id', 'outcome', 'missing'));
    END IF;
    SELECT k.xmin::text INTO version FROM suspense_cases k
    WHERE k.id = (target ->> 'id')::bigint FOR UPDATE;
    SELECT * INTO held FROM suspense_cases WHERE id = (target ->> 'id')::bigint;
    IF held.id IS NULL THEN
        RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id', 'outcome', 'missing'));
    END IF;
    IF version <> target ->> 'version' OR held.status NOT IN ('open', 'in_review') THEN
        RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id', 'outcome', 'changed'));
    END IF;
    postings := CASE proposal.kind
        WHEN 'case.adjust' THEN coalesce(proposal.payload -> 'postings', '[]')
        ELSE CASE WHEN held.amount = 0 THEN '[]'::jsonb
             ELSE jsonb_build_array(jsonb_build_object(
                 'account', 'suspense_write_off:' || held.currency, 'amount', -held.amount)) END
    END;
    IF held.amount > 0 THEN
        INSERT INTO ledger_transactions (kind, charge_id, description)
        VALUES (CASE proposal.kind WHEN 'case.adjust' THEN 'adjustment' ELSE 'write_off' END,
                held.charge_id,
                format('case %s, action #%s: %s', held.id, proposal.id, proposal.reason))
        RETURNING id INTO posted;
        INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
        SELECT posted, a.id, a.currency, held.amount
        FROM ledger_accounts a WHERE a.kind = 'suspense' AND a.currency = held.currency;
        FOR posting IN SELECT * FROM jsonb_array_elements(postings) LOOP
            INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
            SELECT posted, a.id, a.currency, (posting ->> 'amount')::bigint
            FROM ledger_accounts a WHERE a.code = posting ->> 'account';
        END LOOP;
    END IF;
    UPDATE suspense_cases
    SET status = CASE proposal.kind WHEN 'case.adjust' THEN 'resolved' ELSE 'written_off' END,
        resolved_at = now(),
        resolution = jsonb_build_object('action', proposal.id, 'kind', proposal.kind,
                                        'reason', proposal.reason, 'postings', postings,
                                        'ledger_transaction', posted)
    WHERE id = held.id;
    RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id', 'outcome', 'done',
                                                'new_id', posted::text));
END
$$;
REVOKE EXECUTE ON FUNCTION execute_case_resolution(operator_actions) FROM PUBLIC;

CREATE OR REPLACE FUNCTION run_database_action(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    CASE proposal.kind
        WHEN 'outbox.resend' THEN RETURN execute_outbox_resend(proposal);
        WHEN 'notification.resend' THEN RETURN execute_notification_resend(proposal);
        WHEN 'case.adjust', 'case.write_off' THEN RETURN execute_case_resolution(proposal);
    END CASE;
END
$$;
