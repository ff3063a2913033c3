-- Money the channel took back from a payment keel still books in full — a
-- dispute the merchant lost, whole or in part — used to leave the clearing
-- account holding it behind a case of 0, for someone to book outside keel. recon_break.take_back books it as a guarded action, one
-- person proposing and a second approving like every other repair:
--   Cr channel_clearing:CUR   what keel holds beyond what the channel holds
--   Dr merchant_payable:M:CUR (payload {"against": "merchant"}: the merchant
--                               bears it, as a lost dispute is the merchant's)
--   or operational_loss:CUR   ({"against": "loss"}: the company bears it).
-- The posting is of kind channel_takeback, on the charge: a run counts it on
-- keel's side, so the day then matches what the channel holds. A break of
-- this kind is one of a payment whose channel side holds less than keel's,
-- from 0 up (status_mismatch, amount_mismatch), where the channel's lines
-- under keel's reference are one report of keel's whole capture, taken back
-- more often than given again, and still hold what the break saw. The
-- charge's clearing
-- money must be what the break says keel holds, so a second take-back, or one
-- on a stale run, is refused; and no money may ever have been parked in
-- suspense on the charge, so that the merchant bears only money the charge's
-- captures credited them, and no case can hand the same money out again.
-- A payment the channel never reported (missing_at_channel) is not taken
-- back: it may be late, or under the channel's own id (recon_break.match). Money the channel
-- gives again later (a dispute reversed) shows as the channel holding more,
-- which a case parks in suspense for the workbench to return.
-- Runs as keel_owner with search_path keel.

-- A migration's rules are recorded in schema_migrations (see migration 0026).
ALTER TABLE action_kinds DISABLE TRIGGER action_kinds_audit;
INSERT INTO action_kinds (kind, target_type, moves_money, executor) VALUES
    ('recon_break.take_back', 'recon_break', true, 'database');
ALTER TABLE action_kinds ENABLE TRIGGER action_kinds_audit;

-- What a charge's clearing account holds for it as a run counts keel's side
-- (DayQueries): captures, money parked from the channel's notices or
-- statements, less what was taken back.
CREATE FUNCTION charge_clearing_holding(charge bigint) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT coalesce(sum(e.amount), 0)
    FROM charges c
    JOIN ledger_transactions t ON t.charge_id = c.id
        AND t.kind IN ('capture', 'suspense_in', 'channel_takeback')
    JOIN ledger_entries e ON e.transaction_id = t.id
    JOIN ledger_accounts a ON a.id = e.account_id
        AND a.code = 'channel_clearing:' || c.currency
    WHERE c.id = charge
$$;
REVOKE EXECUTE ON FUNCTION charge_clearing_holding(bigint) FROM PUBLIC;

-- Why a take-back of this break may not be proposed or run, or NULL.
CREATE FUNCTION take_back_problem(targets jsonb, payload jsonb) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    subject   recon_breaks;
    paid      charges;
    held      suspense_cases;
    reports   bigint;
    reported  bigint;
    takebacks bigint;
    givebacks bigint;
    holds     bigint;
BEGIN
    IF jsonb_array_length(targets) <> 1 OR (targets -> 0 ->> 'id') !~ '^[1-9][0-9]{0,17}$' THEN
        RETURN 'a take-back names exactly one break, by its number';
    END IF;
    SELECT * INTO subject FROM recon_breaks WHERE id = (targets -> 0 ->> 'id')::bigint;
    IF NOT FOUND THEN
        RETURN format('no break %s', targets -> 0 ->> 'id');
    END IF;
    IF subject.status = 'pending' THEN
        RETURN format('break %s is pending: the channel may still report it', subject.id);
    END IF;
    IF subject.status NOT IN ('new', 'persisting') THEN
        RETURN format('break %s is %s', subject.id, subject.status);
    END IF;
    IF payload ->> 'against' IS NULL OR payload ->> 'against' NOT IN ('merchant', 'loss') THEN
        RETURN 'payload.against must be "merchant" or "loss"';
    END IF;
    IF subject.kind <> 'payment' OR subject.class NOT IN ('status_mismatch', 'amount_mismatch') THEN
        RETURN format('break %s is a %s of a %s; only a payment''s status_mismatch or '
                      'amount_mismatch is taken back', subject.id, subject.class, subject.kind);
    END IF;
    IF subject.channel_amount < 0 OR subject.keel_amount <= subject.channel_amount THEN
        RETURN format('break %s: the channel holds %s and keel %s %s; a take-back books what '
                      'keel holds beyond the channel', subject.id, subject.channel_amount,
                      subject.keel_amount, subject.currency);
    END IF;
    SELECT * INTO paid FROM charges
    WHERE public_id = subject.reference AND channel = subject.channel;
    IF NOT FOUND THEN
        RETURN format('break %s names no charge of channel %s', subject.id, subject.channel);
    END IF;
    IF paid.currency <> subject.currency THEN
        RETURN format('break %s is in %s, its charge in %s', subject.id, subject.currency,
                      paid.currency);
    END IF;
    -- What the channel's lines say it holds now, as a run reckons it: one
    -- report of keel's whole capture, taken back more often than given
    -- again, holding what the break saw. A take-back then books exactly
    -- what the reversals took; a statement imported or withdrawn since the
    -- run, or a short report with no dispute, is refused.
    SELECT count(*) FILTER (WHERE NOT l.reverses),
           coalesce(sum(l.amount) FILTER (WHERE NOT l.reverses), 0),
           count(*) FILTER (WHERE l.reverses AND l.amount > 0),
           count(*) FILTER (WHERE l.reverses AND l.amount < 0),
           coalesce(sum(CASE WHEN l.reverses THEN -l.amount ELSE l.amount END), 0)
      INTO reports, reported, takebacks, givebacks, holds
      FROM recon_lines l
     WHERE l.channel = subject.channel AND l.kind = 'payment'
       AND l.reference = subject.reference;
    IF reports <> 1 OR reported <> subject.keel_amount OR takebacks <= givebacks
       OR holds <> subject.channel_amount THEN
        RETURN format('break %s: what the channel holds of %s is not known from its lines '
                      '(%s reports of %s, %s taken back, %s given again, holding %s against '
                      'the %s the break saw): run its day again, or settle it in the '
                      'workbench', subject.id, subject.reference, reports, reported,
                      takebacks, givebacks, holds, subject.channel_amount);
    END IF;
    -- Lines filed for the charge under the channel's own ids (the id keel
    -- kept, or the id of the report the lines above carry: a Stripe dispute
    -- row without keel's metadata is filed under the charge's Stripe id) are
    -- not reckoned above: such a charge is settled in the workbench.
    IF EXISTS (SELECT 1 FROM recon_lines l
               WHERE l.channel = subject.channel AND l.kind = 'payment'
                 AND l.reference <> subject.reference
                 AND (l.channel_reference = paid.channel_reference
                      OR l.reference IN (SELECT r.channel_reference FROM recon_lines r
                                         WHERE r.channel = subject.channel
                                           AND r.kind = 'payment'
                                           AND r.reference = subject.reference))) THEN
        RETURN format('the channel reported charge %s under its own id too: settle it in the '
                      'workbench', paid.public_id);
    END IF;
    IF payload ->> 'against' = 'merchant' AND NOT EXISTS (
           SELECT 1 FROM ledger_accounts
           WHERE code = 'merchant_payable:' || paid.merchant_id || ':' || paid.currency) THEN
        RETURN format('merchant %s has no payable account in %s', paid.merchant_id,
                      paid.currency);
    END IF;
    IF EXISTS (SELECT 1 FROM ledger_transactions
               WHERE charge_id = paid.id AND kind = 'suspense_in') THEN
        RETURN format('money was parked in suspense on charge %s: settle its cases in the '
                      'workbench instead', paid.public_id);
    END IF;
    IF channel_operation_in_flight(paid.id) THEN
        RETURN format('the channel is still answering for charge %s: wait for it',
                      paid.public_id);
    END IF;
    IF charge_clearing_holding(paid.id) <> subject.keel_amount THEN
        RETURN format('charge %s holds %s %s in clearing, not the %s break %s saw: reconcile '
                      'its day again first', paid.public_id, charge_clearing_holding(paid.id),
                      subject.currency, subject.keel_amount, subject.id);
    END IF;
    SELECT * INTO held FROM suspense_cases
    WHERE recon_break_id = subject.id AND status IN ('open', 'in_review');
    IF FOUND AND held.amount <> 0 THEN
        RETURN format('case %s of break %s holds %s: resolve it in the workbench', held.id,
                      subject.id, held.amount);
    END IF;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION take_back_problem(jsonb, jsonb) FROM PUBLIC;

-- The other resolutions keep their rules; the check every recon_break.*
-- proposal passes (migration 0026's trigger) now knows this one too.
ALTER FUNCTION break_resolution_problem(text, jsonb, jsonb)
    RENAME TO break_resolution_problem_of_0026;
REVOKE EXECUTE ON FUNCTION break_resolution_problem_of_0026(text, jsonb, jsonb)
    FROM keel_operator, keel_approver;

CREATE FUNCTION break_resolution_problem(kind text, targets jsonb, payload jsonb) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    IF kind = 'recon_break.take_back' THEN
        RETURN take_back_problem(targets, payload);
    END IF;
    RETURN break_resolution_problem_of_0026(kind, targets, payload);
END
$$;
REVOKE EXECUTE ON FUNCTION break_resolution_problem(text, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION break_resolution_problem(text, jsonb, jsonb)
    TO keel_operator, keel_approver;

CREATE FUNCTION execute_take_back(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    target  jsonb := proposal.targets -> 0;
    subject recon_breaks;
    paid    charges;
    held    suspense_cases;
    version text;
    problem text;
    taken   bigint;
    bearer  bigint;
    posted  bigint;
BEGIN
    IF jsonb_array_length(proposal.targets) <> 1
       OR target ->> 'id' !~ '^[1-9][0-9]{0,17}$' THEN
        RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id', 'outcome', 'missing'));
    END IF;
    -- The break, then its open case, as the other resolutions take them.
    SELECT * INTO subject FROM recon_breaks WHERE id = (target ->> 'id')::bigint FOR UPDATE;
    IF NOT FOUND THEN
        RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id', 'outcome', 'missing'));
    END IF;
    SELECT b.xmin::text INTO version FROM recon_breaks b WHERE b.id = subject.id;
    PERFORM 1 FROM suspense_cases
    WHERE recon_break_id = subject.id AND status IN ('open', 'in_review') FOR UPDATE;
    IF version <> target ->> 'version' THEN
        RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id', 'outcome', 'changed'));
    END IF;
    -- The charge's clearing money, locked with the charge, so that no other
    -- take-back or run's case moves it between this check and the posting.
    SELECT * INTO paid FROM charges
    WHERE public_id = subject.reference AND channel = subject.channel FOR UPDATE;
    problem := take_back_problem(proposal.targets, proposal.payload);
    IF problem IS NOT NULL THEN
        RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id',
                                                    'outcome', 'not_allowed',
                                                    'message', problem));
    END IF;
    taken := subject.keel_amount - subject.channel_amount;
    -- The decision first: the posting below is allowed only against it.
    UPDATE recon_breaks
    SET status = 'resolved', resolved_at = now(),
        resolution = jsonb_build_object('kind', proposal.kind, 'action', proposal.id,
                                        'proposed_by', proposal.proposed_by,
                                        'reason', proposal.reason,
                                        'payload', proposal.payload,
                                        'channel_amount', subject.channel_amount,
                                        'keel_amount', subject.keel_amount)
    WHERE id = subject.id;
    SELECT id INTO STRICT bearer FROM ledger_accounts
    WHERE code = CASE proposal.payload ->> 'against'
                     WHEN 'merchant' THEN 'merchant_payable:' || paid.merchant_id || ':'
                                          || paid.currency
                     ELSE 'operational_loss:' || paid.currency END;
    INSERT INTO ledger_transactions (kind, charge_id, recon_break_id, description)
    VALUES ('channel_takeback', paid.id, subject.id,
            format('break %s, action #%s: %s %s %s taken back by %s (it holds %s), borne by '
                   'the %s: %s', subject.id, proposal.id, subject.reference, taken,
                   subject.currency, subject.channel, subject.channel_amount,
                   proposal.payload ->> 'against', proposal.reason))
    RETURNING id INTO posted;
    INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
    SELECT posted, a.id, a.currency, CASE a.id WHEN bearer THEN taken ELSE -taken END
    FROM ledger_accounts a
    WHERE a.id = bearer OR a.code = 'channel_clearing:' || paid.currency;
    SELECT * INTO held FROM suspense_cases
    WHERE recon_break_id = subject.id AND status IN ('open', 'in_review');
    IF FOUND THEN
        PERFORM close_break_case(held, proposal); -- a case of 0: nothing is posted
    END IF;
    UPDATE recon_breaks
    SET resolution = resolution || jsonb_build_object('ledger_transaction', posted)
    WHERE id = subject.id;
    RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id', 'outcome', 'done',
                                                'new_id', posted::text));
END
$$;
REVOKE EXECUTE ON FUNCTION execute_take_back(operator_actions) FROM PUBLIC;

-- A run counts a take-back as a person's decision, so only one may post it:
-- the break it names must be resolved by an approved take-back (a column
-- the service login cannot write, migration 0026) that has posted nothing
-- yet. Whatever writes the ledger, no take-back bypasses the second person.
CREATE FUNCTION ledger_takeback_decided() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM recon_breaks b
                   WHERE b.id = NEW.recon_break_id AND b.status = 'resolved'
                     AND b.resolution ->> 'kind' = 'recon_break.take_back'
                     AND NOT b.resolution ? 'ledger_transaction') THEN
        RAISE EXCEPTION 'a channel_takeback is posted only by an approved recon_break.take_back'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
REVOKE EXECUTE ON FUNCTION ledger_takeback_decided() FROM PUBLIC;
CREATE TRIGGER ledger_transactions_takeback_decided BEFORE INSERT ON ledger_transactions
    FOR EACH ROW WHEN (NEW.kind = 'channel_takeback')
    EXECUTE FUNCTION ledger_takeback_decided();

CREATE OR REPLACE FUNCTION run_database_action(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    CASE proposal.kind
        WHEN 'outbox.resend' THEN RETURN execute_outbox_resend(proposal);
        WHEN 'notification.resend' THEN RETURN execute_notification_resend(proposal);
        WHEN 'case.adjust', 'case.write_off' THEN RETURN execute_case_resolution(proposal);
        WHEN 'recon_break.match', 'recon_break.accept', 'recon_break.fee_adjust' THEN
            RETURN execute_break_resolution(proposal);
        WHEN 'recon_break.take_back' THEN RETURN execute_take_back(proposal);
        WHEN 'recon_statement.withdraw' THEN RETURN execute_statement_withdrawal(proposal);
    END CASE;
END
$$;
