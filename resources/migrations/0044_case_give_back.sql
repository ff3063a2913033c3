-- keel schema v44: money the channel gives again after a take-back goes back
-- to whoever bore the take-back, and the charge may be refunded again.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- A dispute the merchant lost was taken back (recon_break.take_back,
-- migration 0042): the merchant, or the company as a loss, bore it, and the
-- charge refunds no more than the channel left of it (migration 0043). When
-- the channel later gives the money again (the merchant won on appeal:
-- Stripe's dispute_reversal; or the statement that showed the dispute is
-- withdrawn), the next run of the payment's day finds the channel holding
-- more than keel and parks the difference in suspense on the charge. Until
-- now a person could only hand that case's money out by adjustment: the
-- charge still counted the take-back whole, so it went on refusing refunds
-- of money the customer no longer had back.
--
-- case.give_back resolves such a case, one person proposing and a second
-- approving:
--   Dr suspense:CUR            what the case holds
--   Cr merchant_payable:M:CUR  (payload {"to": "merchant"}) or
--      operational_loss:CUR    ({"to": "loss"})
-- as a posting of kind channel_giveback on the charge, naming the case. It
-- gives back no more than take-backs of the charge took from that account,
-- less what was given back to it already; what a charge counts as taken back
-- (charge_taken_back, so charge_withheld and a later take-back's remainder)
-- is that net. The clearing account does not move: the case's parking
-- already put the channel's money there, and a run counts it on keel's side.

-- A migration's rules are recorded in schema_migrations (see migration 0026).
ALTER TABLE action_kinds DISABLE TRIGGER action_kinds_audit;
INSERT INTO action_kinds (kind, target_type, moves_money, executor) VALUES
    ('case.give_back', 'suspense_case', true, 'database');
ALTER TABLE action_kinds ENABLE TRIGGER action_kinds_audit;

-- What take-backs of the charge charged to `bearer` (a merchant's payable
-- or the loss account), less what give-backs returned to it.
CREATE FUNCTION charge_taken_back_from(charge bigint, bearer text) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT coalesce(sum(e.amount), 0)
    FROM ledger_transactions t
    JOIN ledger_entries e ON e.transaction_id = t.id
    JOIN ledger_accounts a ON a.id = e.account_id AND a.code = bearer
    WHERE t.charge_id = charge AND t.kind IN ('channel_takeback', 'channel_giveback')
$$;
REVOKE EXECUTE ON FUNCTION charge_taken_back_from(bigint, text) FROM PUBLIC;

-- What the charge's take-backs moved out of clearing, less what give-backs
-- returned to their bearers: the money the channel is still known to have
-- taken. (Migration 0043 counted the take-backs alone.)
-- Never below 0: a give-back written around the checks (the audit names it)
-- must not net a dispute a run saw out of what the charge withholds.
CREATE OR REPLACE FUNCTION charge_taken_back(charge bigint) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT greatest(0, coalesce(-sum(e.amount) FILTER (WHERE t.kind = 'channel_takeback'
                                                        AND a.code = 'channel_clearing:'
                                                                     || c.currency), 0)
                       + coalesce(sum(e.amount) FILTER (WHERE t.kind = 'channel_giveback'
                                                         AND a.kind <> 'suspense'), 0))
    FROM charges c
    JOIN ledger_transactions t ON t.charge_id = c.id
        AND t.kind IN ('channel_takeback', 'channel_giveback')
    JOIN ledger_entries e ON e.transaction_id = t.id
    JOIN ledger_accounts a ON a.id = e.account_id
    WHERE c.id = charge
$$;

-- The account a give-back of the charge credits.
CREATE FUNCTION give_back_account(paid charges, payload jsonb) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = keel, pg_temp AS $$
    SELECT CASE payload ->> 'to'
               WHEN 'merchant' THEN 'merchant_payable:' || paid.merchant_id || ':' || paid.currency
               WHEN 'loss' THEN 'operational_loss:' || paid.currency END
$$;
REVOKE EXECUTE ON FUNCTION give_back_account(charges, jsonb) FROM PUBLIC;

-- Why a give-back of this case may not be proposed or run, or NULL.
CREATE FUNCTION give_back_problem(targets jsonb, payload jsonb) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    held     suspense_cases;
    paid     charges;
    bearer   text;
    taken    bigint;
    reports  bigint;
    reported bigint;
    reversed bigint;
    counted  bigint;
    holding  bigint;
BEGIN
    IF jsonb_array_length(targets) <> 1 OR (targets -> 0 ->> 'id') !~ '^[1-9][0-9]{0,17}$' THEN
        RETURN 'a give-back resolves exactly one case, by its number';
    END IF;
    SELECT * INTO held FROM suspense_cases WHERE id = (targets -> 0 ->> 'id')::bigint;
    IF NOT FOUND THEN
        RETURN format('no suspense case %s', targets -> 0 ->> 'id');
    END IF;
    IF held.status NOT IN ('open', 'in_review') THEN
        RETURN format('case %s is %s', held.id, held.status);
    END IF;
    IF payload ->> 'to' IS NULL OR payload ->> 'to' NOT IN ('merchant', 'loss') THEN
        RETURN 'payload.to must be "merchant" or "loss"';
    END IF;
    SELECT * INTO paid FROM charges WHERE id = held.charge_id;
    -- The money is in suspense as a run put it there: the case's opening
    -- posting (no other case's: the column is unique) moved exactly its
    -- amount from the charge's clearing money, and nothing of it has left
    -- since. (The service login may insert cases.)
    IF held.recon_break_id IS NULL OR held.charge_id IS NULL OR held.saga_id IS NOT NULL
       OR held.amount <= 0
       OR NOT EXISTS (
           SELECT 1 FROM ledger_transactions t
           WHERE t.id = held.ledger_transaction_id AND t.kind = 'suspense_in'
             AND t.charge_id = paid.id
             AND (SELECT count(*) = 2
                         AND coalesce(sum(e.amount) FILTER (WHERE a.code = 'channel_clearing:'
                                                                           || paid.currency), 0)
                             = held.amount
                         AND coalesce(sum(e.amount) FILTER (WHERE a.kind = 'suspense'), 0)
                             = -held.amount
                  FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
                  WHERE e.transaction_id = t.id))
       OR EXISTS (SELECT 1 FROM ledger_transactions t WHERE t.suspense_case_id = held.id) THEN
        RETURN format('case %s does not hold money a reconciliation run parked on a charge',
                      held.id);
    END IF;
    IF paid.currency <> held.currency THEN
        RETURN format('case %s is in %s, its charge in %s', held.id, held.currency,
                      paid.currency);
    END IF;
    bearer := give_back_account(paid, payload);
    IF NOT EXISTS (SELECT 1 FROM ledger_accounts WHERE code = bearer) THEN
        RETURN format('there is no account %s', bearer);
    END IF;
    -- What the channel's lines under keel's reference say now: one report
    -- of keel's whole capture, and what reversals still keep of it (taken
    -- back less given again). keel must go on counting at least that as
    -- taken back once this case is given back, and the parking must have
    -- made keel hold what the lines hold: money the channel took again, a
    -- reversal's statement withdrawn since the run, or a second report of
    -- the payment is not given back.
    SELECT count(*) FILTER (WHERE NOT l.reverses),
           coalesce(sum(l.amount) FILTER (WHERE NOT l.reverses), 0),
           coalesce(sum(l.amount) FILTER (WHERE l.reverses), 0)
      INTO reports, reported, reversed
      FROM recon_lines l
     WHERE l.channel = paid.channel AND l.kind = 'payment' AND l.reference = paid.public_id;
    counted := charge_taken_back(paid.id);
    holding := charge_clearing_holding(paid.id);
    IF reports <> 1 OR reported <> paid.amount_captured OR reversed < 0
       OR counted - held.amount < reversed OR holding <> reported - reversed THEN
        RETURN format('the channel''s lines for %s do not show it giving again what case %s '
                      'holds (%s reports of %s, %s kept by reversals, %s %s counted taken '
                      'back, %s in clearing): run its day again, or settle the case by '
                      'adjustment', paid.public_id, held.id, reports, reported, reversed,
                      counted, paid.currency, holding);
    END IF;
    -- What the account bore for the charge, less what give-backs and the
    -- adjustments of other cases runs parked on the charge (money given
    -- again, handed out before give-backs existed) already credited it. A
    -- saga's case holds the merchant's own money, not the take-back's.
    taken := charge_taken_back_from(paid.id, bearer)
             + coalesce((SELECT sum(e.amount) FROM suspense_cases k
                         JOIN ledger_transactions t ON t.suspense_case_id = k.id
                             AND t.kind = 'adjustment'
                         JOIN ledger_entries e ON e.transaction_id = t.id
                         JOIN ledger_accounts a ON a.id = e.account_id AND a.code = bearer
                         WHERE k.charge_id = paid.id AND k.id <> held.id
                           AND k.recon_break_id IS NOT NULL AND k.saga_id IS NULL), 0);
    IF taken < held.amount THEN
        RETURN format('case %s holds %s %s, but take-backs of charge %s charged %s %s to %s '
                      'that was not given back: settle the case by adjustment', held.id,
                      held.amount, held.currency, paid.public_id, greatest(taken, 0),
                      paid.currency, bearer);
    END IF;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION give_back_problem(jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION give_back_problem(jsonb, jsonb) TO keel_operator, keel_approver;

CREATE FUNCTION operator_actions_check_give_back() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    problem text;
BEGIN
    IF NEW.kind = 'case.give_back' THEN
        problem := give_back_problem(NEW.targets, NEW.payload);
        IF problem IS NOT NULL THEN
            RAISE EXCEPTION '%', problem USING ERRCODE = 'KL422', COLUMN = 'targets';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
REVOKE EXECUTE ON FUNCTION operator_actions_check_give_back() FROM PUBLIC;
-- Named to sort after operator_actions_admit, which checks the target list's shape.
CREATE TRIGGER operator_actions_check_give_back BEFORE INSERT ON operator_actions
    FOR EACH ROW EXECUTE FUNCTION operator_actions_check_give_back();

CREATE FUNCTION execute_give_back(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    target  jsonb := proposal.targets -> 0;
    held    suspense_cases;
    paid    charges;
    version text;
    problem text;
    bearer  text;
    posted  bigint;
BEGIN
    IF jsonb_array_length(proposal.targets) <> 1 OR target ->> 'id' !~ '^[1-9][0-9]{0,17}$' THEN
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
    -- The charge, as a take-back and a refund's check take it, so that what
    -- was taken back cannot change between the check and the posting.
    SELECT * INTO paid FROM charges WHERE id = held.charge_id FOR UPDATE;
    problem := give_back_problem(proposal.targets, proposal.payload);
    IF problem IS NOT NULL THEN
        RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id',
                                                    'outcome', 'not_allowed',
                                                    'message', problem));
    END IF;
    bearer := give_back_account(paid, proposal.payload);
    -- The decision first: the posting below is allowed only against it.
    UPDATE suspense_cases
    SET status = 'resolved', resolved_at = now(),
        resolution = jsonb_build_object('action', proposal.id, 'kind', proposal.kind,
                                        'reason', proposal.reason, 'payload', proposal.payload,
                                        'postings', jsonb_build_array(jsonb_build_object(
                                            'account', bearer, 'amount', -held.amount)))
    WHERE id = held.id;
    INSERT INTO ledger_transactions (kind, charge_id, recon_break_id, suspense_case_id,
                                     description)
    VALUES ('channel_giveback', paid.id, held.recon_break_id, held.id,
            format('case %s, action #%s: %s %s %s given again by %s, back to the %s: %s',
                   held.id, proposal.id, paid.public_id, held.amount, held.currency,
                   paid.channel, proposal.payload ->> 'to', proposal.reason))
    RETURNING id INTO posted;
    INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
    SELECT posted, a.id, a.currency, CASE a.kind WHEN 'suspense' THEN held.amount
                                                 ELSE -held.amount END
    FROM ledger_accounts a
    WHERE a.code = bearer OR (a.kind = 'suspense' AND a.currency = held.currency);
    UPDATE suspense_cases
    SET resolution = resolution || jsonb_build_object('ledger_transaction', posted)
    WHERE id = held.id;
    RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id', 'outcome', 'done',
                                                'new_id', posted::text));
END
$$;
REVOKE EXECUTE ON FUNCTION execute_give_back(operator_actions) FROM PUBLIC;

-- Only an approved give-back posts one, against the case it has just
-- resolved: a run, the service login or a case.adjust cannot make a charge
-- refundable again.
CREATE FUNCTION ledger_giveback_decided() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    -- The service login may insert cases, so the case alone proves nothing:
    -- the approved action it names, which no service can write, does.
    IF NOT EXISTS (SELECT 1 FROM suspense_cases k
                   JOIN operator_actions x ON x.id::text = k.resolution ->> 'action'
                       AND x.kind = 'case.give_back' AND x.status = 'approved'
                       AND jsonb_array_length(x.targets) = 1
                       AND x.targets -> 0 ->> 'id' = k.id::text
                   WHERE k.id = NEW.suspense_case_id AND k.charge_id = NEW.charge_id
                     AND k.status = 'resolved'
                     AND k.resolution ->> 'kind' = 'case.give_back'
                     AND NOT k.resolution ? 'ledger_transaction'
                     AND EXISTS (SELECT 1 FROM approvals p
                                 WHERE p.action_id = x.id AND p.decision = 'approve'
                                   AND p.decided_by <> x.proposed_by)) THEN
        RAISE EXCEPTION 'a channel_giveback is posted only by an approved case.give_back'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
REVOKE EXECUTE ON FUNCTION ledger_giveback_decided() FROM PUBLIC;
CREATE TRIGGER ledger_transactions_giveback_decided BEFORE INSERT ON ledger_transactions
    FOR EACH ROW WHEN (NEW.kind = 'channel_giveback')
    EXECUTE FUNCTION ledger_giveback_decided();

CREATE OR REPLACE FUNCTION run_database_action(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    CASE proposal.kind
        WHEN 'outbox.resend' THEN RETURN execute_outbox_resend(proposal);
        WHEN 'notification.resend' THEN RETURN execute_notification_resend(proposal);
        WHEN 'case.adjust', 'case.write_off' THEN RETURN execute_case_resolution(proposal);
        WHEN 'case.give_back' THEN RETURN execute_give_back(proposal);
        WHEN 'recon_break.match', 'recon_break.accept', 'recon_break.fee_adjust' THEN
            RETURN execute_break_resolution(proposal);
        WHEN 'recon_break.take_back' THEN RETURN execute_take_back(proposal);
        WHEN 'recon_statement.withdraw' THEN RETURN execute_statement_withdrawal(proposal);
    END CASE;
END
$$;

-- keel audit ledger checks each give-back after the fact: the one the case
-- it names reports, of what that case held, by an executed case.give_back
-- approved by someone other than its proposer; and no account given back
-- more than take-backs of the charge charged it. The first posting that is
-- not, or none.
CREATE FUNCTION giveback_unsanctioned() RETURNS TABLE (posting text, charge text, owed text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT t.id::text, coalesce(c.public_id, 'none'), coalesce(o.owed::text, 'nothing')
    FROM ledger_transactions t
    LEFT JOIN charges c ON c.id = t.charge_id
    LEFT JOIN suspense_cases k ON k.id = t.suspense_case_id AND k.charge_id = t.charge_id
        AND k.status = 'resolved' AND k.resolution ->> 'kind' = 'case.give_back'
        AND k.resolution ->> 'ledger_transaction' = t.id::text
    CROSS JOIN LATERAL (
        SELECT min(charge_taken_back_from(t.charge_id, a.code)) AS owed
        FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
        WHERE e.transaction_id = t.id AND a.kind <> 'suspense') o
    CROSS JOIN LATERAL (
        SELECT sum(e.amount) AS moved
        FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
        WHERE e.transaction_id = t.id AND a.kind = 'suspense') m
    WHERE t.kind = 'channel_giveback'
      AND (c.id IS NULL OR k.id IS NULL OR o.owed IS NULL OR o.owed < 0
           OR m.moved IS DISTINCT FROM k.amount
           OR NOT EXISTS (
               SELECT 1 FROM operator_actions x
               JOIN approvals p ON p.action_id = x.id AND p.decision = 'approve'
                   AND p.decided_by <> x.proposed_by
               WHERE x.kind = 'case.give_back' AND x.status = 'executed'
                 AND x.after @> jsonb_build_array(jsonb_build_object('outcome', 'done',
                                                                     'new_id', t.id::text))))
    ORDER BY t.id
    LIMIT 1
$$;
REVOKE EXECUTE ON FUNCTION giveback_unsanctioned() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION giveback_unsanctioned() TO keel_gateway, keel_auditor, keel_operator,
    keel_approver;
