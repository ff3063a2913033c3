-- Repairs that stay right when they run as the production roles (the worker
-- and gateway as keel_gateway, people as their own logins):
--  * a saga may be parked again after a resume: one open case per saga at a
--    time, every episode kept;
--  * resuming a parked saga releases its case's money through one definer
--    function, the only writer of a resumed case, and the database refuses to
--    take a saga out of `parked` unless that release happened in the same
--    transaction: a case resolved by adjustment or write-off can never be
--    resumed, and its saga is closed as `resolved` by the resolution itself;
--  * no case opens while a channel operation on its charge is in flight (its
--    outcome would move money the case does not account for);
--  * money leaves a suspense account only for a case, and never more than the
--    case put in;
--  * a case.adjust posts only to the accounts of its case: the merchant's, the
--    charge's channel clearing account, and the fee/loss accounts keel defines;
--  * a channel notice kept for a person (conflicting, amount_mismatch,
--    unknown_charge) opens a suspense case, holding the money when the
--    channel reports moving money keel never booked;
--  * a queued action is finished only by the worker that holds its claim;
--  * the checker approves what they were shown: the approval names the hash
--    of the kind, targets and payload, which is what executes;
--  * changes to the rules (ops_policy, action_kinds) and to merchants and
--    their secrets are audited.
-- Runs as keel_owner with search_path keel.

-- Error codes raised here, besides those of 0016:
--   KL412  the saga's case is closed: its money is no longer in suspense
--   KL423  the charge's money is held in an open suspense case: no refund
--   KL425  a channel operation on the charge is in flight; try again later

ALTER TABLE sagas DROP CONSTRAINT sagas_status_check;
ALTER TABLE sagas ADD CONSTRAINT sagas_status_check
    CHECK (status IN ('running', 'compensating', 'succeeded', 'compensated', 'parked',
                      'resolved'));

DROP INDEX suspense_cases_one_per_saga;
CREATE UNIQUE INDEX suspense_cases_one_open_per_saga ON suspense_cases (saga_id)
    WHERE saga_id IS NOT NULL AND status IN ('open', 'in_review');
CREATE INDEX suspense_cases_saga ON suspense_cases (saga_id, id) WHERE saga_id IS NOT NULL;
-- Whose money a case holds: its charge's merchant, or the merchant a break
-- without a charge was found for.
ALTER TABLE suspense_cases ADD COLUMN merchant_id bigint REFERENCES merchants (id);
UPDATE suspense_cases c SET merchant_id = ch.merchant_id FROM charges ch WHERE ch.id = c.charge_id;
CREATE INDEX suspense_cases_charge ON suspense_cases (charge_id) WHERE charge_id IS NOT NULL;

-- The case a ledger transaction takes money out of suspense for.
ALTER TABLE ledger_transactions
    ADD COLUMN suspense_case_id bigint REFERENCES suspense_cases (id);
CREATE INDEX ledger_transactions_suspense_case ON ledger_transactions (suspense_case_id)
    WHERE suspense_case_id IS NOT NULL;
UPDATE ledger_transactions t SET suspense_case_id = c.id
FROM suspense_cases c
WHERE t.id IN ((c.resolution ->> 'release_transaction')::bigint,
               (c.resolution ->> 'ledger_transaction')::bigint);

-- Accounts a person may post a case adjustment to besides the case's own.
ALTER TABLE ledger_accounts ADD COLUMN case_adjustable boolean NOT NULL DEFAULT false;
INSERT INTO ledger_accounts (code, kind, currency)
    SELECT 'channel_fees:' || code, 'expense', code FROM currencies
    UNION ALL
    SELECT 'operational_loss:' || code, 'expense', code FROM currencies
ON CONFLICT (code) DO NOTHING;
UPDATE ledger_accounts SET case_adjustable = true
WHERE code LIKE 'suspense_write_off:%' OR code LIKE 'channel_fees:%'
   OR code LIKE 'operational_loss:%';

-- Money out of a suspense account (a debit) names its case, and all that the
-- case's transactions take out never exceeds what its opening posting put in.
CREATE FUNCTION suspense_release_check() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    held suspense_cases;
    released bigint;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM ledger_accounts
                   WHERE id = NEW.account_id AND kind = 'suspense') THEN
        RETURN NULL;
    END IF;
    SELECT c.* INTO held FROM ledger_transactions t JOIN suspense_cases c
        ON c.id = t.suspense_case_id WHERE t.id = NEW.transaction_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'ledger transaction % takes % out of suspense for no case',
            NEW.transaction_id, NEW.amount
            USING ERRCODE = 'check_violation';
    END IF;
    SELECT coalesce(sum(e.amount), 0) INTO released
    FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
    JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'suspense'
    WHERE t.suspense_case_id = held.id AND e.amount > 0;
    IF released > held.amount THEN
        RAISE EXCEPTION 'case % holds % in suspense; % would leave it', held.id, held.amount,
            released
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER ledger_entries_suspense_release
    AFTER INSERT ON ledger_entries
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.amount > 0) EXECUTE FUNCTION suspense_release_check();

-- Whether a channel operation on the charge is still in flight: a refund the
-- channel has not answered, or a charge between states.
CREATE FUNCTION channel_operation_in_flight(charge bigint) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT EXISTS (SELECT 1 FROM refunds WHERE charge_id = charge AND status = 'pending')
        OR EXISTS (SELECT 1 FROM payment_state WHERE charge_id = charge
                   AND state IN ('Authorizing', 'Capturing', 'Refunding'));
$$;
REVOKE EXECUTE ON FUNCTION channel_operation_in_flight(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION channel_operation_in_flight(bigint)
    TO keel_gateway, keel_operator, keel_approver;

-- A case that holds money, or a saga's (whose park reckons what the charge
-- holds), waits for the charge to settle; a notice's case without money is
-- only a person's to-do and opens at once.
CREATE FUNCTION suspense_cases_admit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    IF NEW.charge_id IS NOT NULL AND (NEW.saga_id IS NOT NULL OR NEW.amount > 0)
       AND channel_operation_in_flight(NEW.charge_id) THEN
        RAISE EXCEPTION 'charge % has a channel operation in flight: a case opened now would '
                        'not hold what that operation moves', NEW.charge_id
            USING ERRCODE = 'KL425';
    END IF;
    IF NEW.charge_id IS NOT NULL THEN
        NEW.merchant_id := (SELECT merchant_id FROM charges WHERE id = NEW.charge_id);
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER suspense_cases_admit BEFORE INSERT ON suspense_cases
    FOR EACH ROW EXECUTE FUNCTION suspense_cases_admit();

-- A saga leaves `parked` only in the transaction that closed its latest case:
-- back to work after resume_case() released the money, or `resolved` after a
-- person's adjustment or write-off.
CREATE FUNCTION sagas_unpark_check() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    latest suspense_cases;
BEGIN
    SELECT * INTO latest FROM suspense_cases WHERE saga_id = NEW.id ORDER BY id DESC LIMIT 1;
    IF NEW.status = 'resolved' THEN
        IF latest.status IN ('resolved', 'written_off')
           AND latest.resolution ->> 'action' IS DISTINCT FROM 'resumed' THEN
            RETURN NEW;
        END IF;
        RAISE EXCEPTION 'saga % is resolved only by its case''s resolution', NEW.public_id
            USING ERRCODE = 'KL412';
    END IF;
    IF latest.id IS NULL OR latest.resolution ->> 'action' IS DISTINCT FROM 'resumed'
       OR latest.resolved_at IS DISTINCT FROM now() THEN
        RAISE EXCEPTION 'saga % cannot leave parked: its case % is %', NEW.public_id,
            latest.id, coalesce(latest.status, 'missing')
            USING ERRCODE = 'KL412';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER sagas_unpark_check BEFORE UPDATE OF status ON sagas
    FOR EACH ROW WHEN (OLD.status = 'parked' AND NEW.status <> 'parked')
    EXECUTE FUNCTION sagas_unpark_check();
CREATE TRIGGER sagas_resolved_final BEFORE UPDATE OF status ON sagas
    FOR EACH ROW WHEN (OLD.status = 'resolved' AND NEW.status <> 'resolved')
    EXECUTE FUNCTION reject_change();

-- Sagas left parked by a case a person already adjusted or wrote off (the
-- state a resume could once debit the merchant from again) are closed now.
WITH latest AS (
    SELECT DISTINCT ON (saga_id) saga_id, id, status, resolution
    FROM suspense_cases WHERE saga_id IS NOT NULL ORDER BY saga_id, id DESC),
closed AS (
    UPDATE sagas s SET status = 'resolved', version = s.version + 1, updated_at = now(),
        finished_at = now()
    FROM latest l
    WHERE s.id = l.saga_id AND s.status = 'parked' AND l.status IN ('resolved', 'written_off')
      AND l.resolution ->> 'action' IS DISTINCT FROM 'resumed'
    RETURNING s.id, l.id AS case_id)
INSERT INTO saga_events (saga_id, event, detail)
SELECT id, 'case_resolved', jsonb_build_object('case', case_id, 'by', 'migration 0021')
FROM closed;

-- The worker's half of a resume: the saga's open case closes and every
-- posting that put its money into suspense is reversed, so the merchant's
-- payable holds it again for the compensation to take. Returns the release
-- transaction's id (NULL for a case that held no money).
CREATE FUNCTION resume_case(saga bigint, why text, acted_for text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    held suspense_cases;
    released bigint;
BEGIN
    SELECT * INTO held FROM suspense_cases
    WHERE saga_id = saga AND status IN ('open', 'in_review') FOR UPDATE;
    IF NOT FOUND THEN
        SELECT * INTO held FROM suspense_cases WHERE saga_id = saga ORDER BY id DESC LIMIT 1;
        RAISE EXCEPTION 'saga %''s case % is %: its money is no longer in suspense', saga,
            held.id, coalesce(held.status, 'missing')
            USING ERRCODE = 'KL412';
    END IF;
    IF held.amount > 0 THEN
        INSERT INTO ledger_transactions (kind, charge_id, description, suspense_case_id)
        VALUES ('suspense_out', held.charge_id,
                format('case %s released for a resume: %s', held.id, why), held.id)
        RETURNING id INTO released;
        INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
        SELECT released, account_id, currency, -amount FROM ledger_entries
        WHERE transaction_id = held.ledger_transaction_id;
    END IF;
    UPDATE suspense_cases
    SET status = 'resolved', resolved_at = now(),
        resolution = jsonb_build_object('action', 'resumed', 'reason', why,
                                        'actor', session_user, 'acted_for', acted_for,
                                        'release_transaction', released)
    WHERE id = held.id;
    PERFORM audit('case.resume', 'suspense_case', held.id::text,
                  jsonb_build_object('saga', saga, 'amount', held.amount,
                                     'release_transaction', released, 'reason', why,
                                     'acted_for', acted_for));
    RETURN released;
END
$$;
REVOKE EXECUTE ON FUNCTION resume_case(bigint, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION resume_case(bigint, text, text) TO keel_gateway;

-- The postings a case.adjust proposal carries, checked against its case:
-- known accounts of the case's currency, each the case merchant's, the
-- channel clearing account of its charge, or one keel defines for fees and
-- losses; non-zero amounts; a sum that exactly clears what the case holds.
CREATE OR REPLACE FUNCTION adjustment_problem(case_id bigint, postings jsonb) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    held suspense_cases;
    merchant bigint;
    posting jsonb;
    account ledger_accounts;
    total bigint := 0;
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
                OR ((held.charge_id IS NOT NULL OR held.channel_notification_id IS NOT NULL)
                    AND account.code = 'channel_clearing:' || held.currency))
        THEN
            RETURN format('posting %s: account %s is outside case %s (its merchant''s accounts, '
                          'its charge''s channel clearing account and keel''s fee and loss '
                          'accounts are)', posting, account.code, case_id);
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

-- Resolves one case of a case.adjust or case.write_off proposal; a parked
-- saga whose case this is closes with it, as resolved by a person.
CREATE OR REPLACE FUNCTION execute_case_resolution(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    target   jsonb := proposal.targets -> 0;
    held     suspense_cases;
    version  text;
    postings jsonb;
    posted   bigint;
    posting  jsonb;
    problem  text;
    closed   sagas;
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
    IF proposal.kind = 'case.adjust' THEN
        problem := adjustment_problem(held.id, proposal.payload -> 'postings');
        IF problem IS NOT NULL THEN
            RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id',
                                                        'outcome', 'not_allowed',
                                                        'message', problem));
        END IF;
    END IF;
    postings := CASE proposal.kind
        WHEN 'case.adjust' THEN coalesce(proposal.payload -> 'postings', '[]')
        ELSE CASE WHEN held.amount = 0 THEN '[]'::jsonb
             ELSE jsonb_build_array(jsonb_build_object(
                 'account', 'suspense_write_off:' || held.currency, 'amount', -held.amount)) END
    END;
    IF held.amount > 0 THEN
        INSERT INTO ledger_transactions (kind, charge_id, description, suspense_case_id)
        VALUES (CASE proposal.kind WHEN 'case.adjust' THEN 'adjustment' ELSE 'write_off' END,
                held.charge_id,
                format('case %s, action #%s: %s', held.id, proposal.id, proposal.reason), held.id)
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
    IF held.saga_id IS NOT NULL THEN
        UPDATE sagas s SET status = 'resolved', version = s.version + 1, updated_at = now(),
            finished_at = now(), lease_owner = NULL, lease_expires_at = NULL,
            last_error = format('case %s %s by action #%s', held.id,
                                CASE proposal.kind WHEN 'case.adjust' THEN 'adjusted'
                                     ELSE 'written off' END, proposal.id)
        WHERE s.id = held.saga_id AND s.status = 'parked'
        RETURNING s.* INTO closed;
        IF closed.id IS NOT NULL THEN
            INSERT INTO saga_events (saga_id, event, detail)
            VALUES (closed.id, 'case_resolved',
                    jsonb_build_object('case', held.id, 'kind', proposal.kind,
                                       'action', proposal.id, 'reason', proposal.reason,
                                       'actor', session_user));
            INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload)
            VALUES ('saga', closed.public_id, 'saga.resolved',
                    jsonb_build_object('saga', closed.public_id, 'name', closed.kind,
                                       'status', 'resolved'));
        END IF;
    END IF;
    RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id', 'outcome', 'done',
                                                'new_id', posted::text));
END
$$;

-- A queued action belongs to the claim that took it: claim_queued_action()
-- hands out a token, and only that token finishes it, with one result per
-- frozen target in the target list's order.
ALTER TABLE operator_actions ADD COLUMN claim_token uuid;

DROP FUNCTION claim_queued_action();
CREATE FUNCTION claim_queued_action() RETURNS SETOF operator_actions
LANGUAGE sql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    UPDATE operator_actions SET claimed_until = now() + interval '1 minute',
        claim_token = gen_random_uuid()
    WHERE id = (SELECT id FROM operator_actions
                WHERE status = 'queued' AND coalesce(claimed_until, '-infinity') < now()
                ORDER BY queued_at LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING *;
$$;
REVOKE EXECUTE ON FUNCTION claim_queued_action() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION claim_queued_action() TO keel_gateway;

DROP FUNCTION finish_queued_action(bigint, jsonb);
CREATE FUNCTION finish_queued_action(action_id bigint, token uuid, results jsonb) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    proposal operator_actions;
BEGIN
    SELECT * INTO proposal FROM operator_actions WHERE id = action_id FOR UPDATE;
    IF NOT FOUND OR proposal.status <> 'queued' THEN
        RAISE EXCEPTION 'action % is not queued', action_id USING ERRCODE = 'KL409';
    END IF;
    IF proposal.claim_token IS DISTINCT FROM token THEN
        RAISE EXCEPTION 'action % is not claimed by this worker', action_id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF jsonb_typeof(results) IS DISTINCT FROM 'array'
       OR jsonb_array_length(results) <> jsonb_array_length(proposal.targets)
       OR EXISTS (SELECT 1 FROM jsonb_array_elements(results) WITH ORDINALITY r(v, i)
                  JOIN jsonb_array_elements(proposal.targets) WITH ORDINALITY t(v, i) USING (i)
                  WHERE r.v ->> 'id' IS DISTINCT FROM t.v ->> 'id'
                     OR r.v ->> 'outcome' NOT IN ('done', 'changed', 'not_allowed', 'busy',
                                                  'missing', 'failed')) THEN
        RAISE EXCEPTION 'results for action % must give one known outcome per target, in order',
            action_id
            USING ERRCODE = 'KL422';
    END IF;
    RETURN finish(proposal, results);
END
$$;
REVOKE EXECUTE ON FUNCTION finish_queued_action(bigint, uuid, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION finish_queued_action(bigint, uuid, jsonb) TO keel_gateway;

-- Maker-checker over what was shown: a proposal's content hash covers its kind,
-- frozen targets and payload; an approval carries the hash its approver saw.
ALTER TABLE operator_actions ADD COLUMN content_hash text;
UPDATE operator_actions SET content_hash = encode(sha256(convert_to(
    jsonb_build_object('kind', kind, 'targets', targets, 'payload', payload)::text, 'UTF8')),
    'hex');
ALTER TABLE approvals ADD COLUMN seen_hash text;

CREATE FUNCTION operator_actions_hash_content() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    NEW.content_hash := encode(sha256(convert_to(
        jsonb_build_object('kind', NEW.kind, 'targets', NEW.targets,
                           'payload', NEW.payload)::text, 'UTF8')), 'hex');
    RETURN NEW;
END
$$;
CREATE TRIGGER operator_actions_hash_content BEFORE INSERT ON operator_actions
    FOR EACH ROW EXECUTE FUNCTION operator_actions_hash_content();

CREATE FUNCTION approvals_check_seen() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    shown text;
BEGIN
    IF NEW.decision = 'approve' THEN
        SELECT content_hash INTO shown FROM operator_actions WHERE id = NEW.action_id;
        IF NEW.seen_hash IS DISTINCT FROM shown THEN
            RAISE EXCEPTION 'approval of action % names content % but the proposal is %: '
                            'look at it again', NEW.action_id, coalesce(NEW.seen_hash, 'none'),
                            shown
                USING ERRCODE = 'KL422', COLUMN = 'seen_hash';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
-- Named to sort after approvals_not_self (the proposer is refused first) and
-- before approvals_take_decision.
CREATE TRIGGER approvals_seen_hash BEFORE INSERT ON approvals
    FOR EACH ROW EXECUTE FUNCTION approvals_check_seen();

-- Changes to the rules themselves land in the audit trail.
CREATE FUNCTION audit_rule_change() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    PERFORM audit('rules.' || lower(TG_OP), TG_TABLE_NAME,
                  coalesce(to_jsonb(NEW) ->> 'kind', to_jsonb(OLD) ->> 'kind', 'policy'),
                  jsonb_build_object('before', to_jsonb(OLD), 'after', to_jsonb(NEW)));
    RETURN NULL;
END
$$;
CREATE TRIGGER ops_policy_audit AFTER INSERT OR UPDATE OR DELETE ON ops_policy
    FOR EACH ROW EXECUTE FUNCTION audit_rule_change();
CREATE TRIGGER action_kinds_audit AFTER INSERT OR UPDATE OR DELETE ON action_kinds
    FOR EACH ROW EXECUTE FUNCTION audit_rule_change();

-- Merchants opened and their secrets issued or rotated, never the secret.
CREATE FUNCTION audit_merchant_change() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    IF TG_TABLE_NAME = 'merchants' THEN
        PERFORM audit(CASE TG_OP WHEN 'INSERT' THEN 'merchant.create' ELSE 'merchant.update' END,
                      'merchant', NEW.id::text,
                      jsonb_build_object('name', NEW.name, 'status', NEW.status,
                                         'notify_url', NEW.notify_url));
    ELSE
        PERFORM audit(CASE TG_OP WHEN 'INSERT' THEN 'merchant.secret_issue'
                                 ELSE 'merchant.secret_change' END,
                      'merchant', NEW.merchant_id::text,
                      jsonb_build_object('rotated_at', NEW.rotated_at,
                                         'previous_kept_until', NEW.previous_expires_at));
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER merchants_audit AFTER INSERT OR UPDATE ON merchants
    FOR EACH ROW EXECUTE FUNCTION audit_merchant_change();
CREATE TRIGGER merchant_secrets_audit AFTER INSERT OR UPDATE ON merchant_secrets
    FOR EACH ROW EXECUTE FUNCTION audit_merchant_change();

-- A channel notice that needs a person opens a case in the same transaction
-- that keeps it. When the channel says it took money for a payment keel holds
-- none of (an unknown charge, or one keel failed), that money is in question:
-- it is booked into the channel clearing account against suspense, and the
-- case holds it. Any other disagreement opens a case without money.
ALTER TABLE suspense_cases
    ADD COLUMN channel_notification_id bigint UNIQUE REFERENCES channel_notifications (id);

CREATE FUNCTION channel_notice_case() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    charge   charges;
    state    text;
    money    bigint := 0;
    posted   bigint;
BEGIN
    SELECT * INTO charge FROM charges WHERE public_id = NEW.reference;
    SELECT p.state INTO state FROM payment_state p WHERE p.charge_id = charge.id;
    IF NEW.outcome = 'approved' AND coalesce(NEW.amount, 0) > 0 AND NEW.currency IS NOT NULL
       AND EXISTS (SELECT 1 FROM currencies WHERE code = NEW.currency)
       AND (charge.id IS NULL OR state IN ('Failed', 'Canceled')) THEN
        money := NEW.amount;
        INSERT INTO ledger_transactions (kind, charge_id, description)
        VALUES ('suspense_in', charge.id,
                format('%s notice %s: the channel took %s %s keel never booked', NEW.channel,
                       NEW.notice_id, NEW.amount, NEW.currency))
        RETURNING id INTO posted;
        INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
        SELECT posted, a.id, NEW.currency,
               CASE a.kind WHEN 'suspense' THEN -NEW.amount ELSE NEW.amount END
        FROM ledger_accounts a
        WHERE a.currency = NEW.currency
          AND (a.kind = 'suspense' OR a.code = 'channel_clearing:' || NEW.currency);
    END IF;
    INSERT INTO suspense_cases (charge_id, currency, amount, reason, ledger_transaction_id,
                                channel_notification_id)
    VALUES (charge.id, coalesce(charge.currency,
                                (SELECT code FROM currencies WHERE code = NEW.currency)),
            money,
            format('%s notice %s: %s (the channel says %s%s; keel has %s)', NEW.channel,
                   NEW.notice_id, NEW.verdict, NEW.outcome,
                   coalesce(' ' || NEW.amount || ' ' || NEW.currency, ''),
                   CASE WHEN charge.id IS NULL THEN 'no such charge'
                        ELSE charge.public_id || ' ' || state || ' ' || charge.amount || ' '
                             || charge.currency END),
            posted, NEW.id);
    RETURN NULL;
END
$$;
CREATE TRIGGER channel_notifications_case AFTER INSERT ON channel_notifications
    FOR EACH ROW WHEN (NEW.verdict IN ('conflicting', 'amount_mismatch', 'unknown_charge'))
    EXECUTE FUNCTION channel_notice_case();

-- A case's trail finds the bulk actions that named it among their targets.
CREATE INDEX operator_actions_targets ON operator_actions USING gin (targets jsonb_path_ops);

-- "Stuck" counts from a saga's last progress (a step reached, a status
-- changed), not from its creation: a long saga that keeps moving is not
-- stuck, and one that stopped moving an hour into its life is.
-- NULL until the first progress after the saga was created.
ALTER TABLE sagas ADD COLUMN progressed_at timestamptz;

-- Every export of keel's records is itself on the trail: who, what, the filter,
-- how many rows and the SHA-256 of the file, so a copy found later can be told
-- from a forged one.
CREATE FUNCTION record_export(what text, filter text, row_count bigint, file_sha256 text)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    IF what NOT IN ('suspense_cases', 'approvals', 'audit_log', 'payments') THEN
        RAISE EXCEPTION 'unknown export %', what USING ERRCODE = 'KL422', COLUMN = 'what';
    END IF;
    IF file_sha256 !~ '^[0-9a-f]{64}$' OR row_count < 0 THEN
        RAISE EXCEPTION 'an export names its rows (≥ 0) and its file''s SHA-256 in hex'
            USING ERRCODE = 'KL422';
    END IF;
    PERFORM audit('export', what, file_sha256,
                  jsonb_build_object('filter', left(filter, 2000), 'rows', row_count,
                                     'sha256', file_sha256));
END
$$;
REVOKE EXECUTE ON FUNCTION record_export(text, text, bigint, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION record_export(text, text, bigint, text)
    TO keel_auditor, keel_operator, keel_approver, keel_sre;

-- While a case holds a charge's money, the charge is not refunded: the refund
-- would take from the merchant's payable what suspense already took. keel's
-- refund service asks first and answers charge_held_in_suspense; this is the
-- rule behind it.
CREATE FUNCTION refunds_admit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    holding bigint;
BEGIN
    SELECT id INTO holding FROM suspense_cases
    WHERE charge_id = NEW.charge_id AND status IN ('open', 'in_review') AND amount > 0 LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'charge % is held in suspense case %: no refund until it is resolved',
            NEW.charge_id, holding
            USING ERRCODE = 'KL423';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER refunds_admit BEFORE INSERT ON refunds
    FOR EACH ROW EXECUTE FUNCTION refunds_admit();
