-- A charge the channel took back (a dispute lost, booked by an approved
-- recon_break.take_back, migration 0042) has already given the customer that
-- money. A refund of it would give it again: the channel might refuse it, but
-- a channel that pays it out would have the clearing account pay twice. So a
-- refund may ask for no more than the charge's capture less what was refunded,
-- what is being refunded, and what was taken back. keel's refund service asks
-- first and answers charge_disputed; this is the rule behind it, for every
-- login that writes refunds. The same holds once a run has seen the channel
-- take money back, before a person books it.
-- Runs as keel_owner with search_path keel.

-- What approved take-backs booked out of the charge's clearing money.
CREATE FUNCTION charge_taken_back(charge bigint) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT coalesce(-sum(e.amount), 0)
    FROM charges c
    JOIN ledger_transactions t ON t.charge_id = c.id AND t.kind = 'channel_takeback'
    JOIN ledger_entries e ON e.transaction_id = t.id
    JOIN ledger_accounts a ON a.id = e.account_id
        AND a.code = 'channel_clearing:' || c.currency
    WHERE c.id = charge
$$;
REVOKE EXECUTE ON FUNCTION charge_taken_back(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION charge_taken_back(bigint) TO keel_gateway;

-- Each refund asks after its charge's open breaks.
CREATE INDEX recon_breaks_open_reference ON recon_breaks (reference, channel)
    WHERE status <> 'resolved';

-- What the channel is known to have taken back of the charge: what approved
-- take-backs booked, and, until one is, what an unresolved break of the
-- charge's payment shows the channel holding short of keel (a dispute a run
-- saw; an accepted one too, as a dispute the merchant contests is held).
CREATE FUNCTION charge_withheld(charge bigint) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT charge_taken_back(c.id)
           + coalesce((SELECT sum(b.keel_amount - b.channel_amount) FROM recon_breaks b
                       WHERE b.channel = c.channel AND b.reference = c.public_id
                         AND b.kind = 'payment'
                         AND b.class IN ('status_mismatch', 'amount_mismatch')
                         AND b.status IN ('new', 'persisting', 'pending', 'accepted')
                         AND b.channel_amount < b.keel_amount), 0)
    FROM charges c
    WHERE c.id = charge
$$;
REVOKE EXECUTE ON FUNCTION charge_withheld(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION charge_withheld(bigint) TO keel_gateway;

-- A second check beside migration 0021's refunds_admit (which refuses a
-- charge held in suspense, KL423), firing after it by name.
CREATE FUNCTION refunds_admit_withheld() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    paid     charges;
    pending  bigint;
    withheld bigint;
BEGIN
    -- A key share of the charge, as its foreign key takes anyway: it waits
    -- for a take-back (which locks the charge for update) and then, each
    -- statement here reading anew, sees what it booked; it does not wait for
    -- a refund's own updates of the charge.
    SELECT * INTO paid FROM charges WHERE id = NEW.charge_id FOR KEY SHARE;
    SELECT coalesce(sum(amount), 0) INTO pending FROM refunds
    WHERE charge_id = NEW.charge_id AND status = 'pending';
    withheld := charge_withheld(NEW.charge_id);
    IF withheld > 0
       AND NEW.amount > paid.amount_captured - paid.amount_refunded - pending - withheld THEN
        RAISE EXCEPTION 'charge % was taken back by its channel (% %): % more cannot be refunded',
            paid.public_id, withheld, paid.currency, NEW.amount
            USING ERRCODE = 'KL426',
                  DETAIL = format('captured %s, refunded %s, refunding %s, taken back %s',
                                  paid.amount_captured, paid.amount_refunded, pending, withheld);
    END IF;
    RETURN NEW;
END
$$;
REVOKE EXECUTE ON FUNCTION refunds_admit_withheld() FROM PUBLIC;
CREATE TRIGGER refunds_admit_withheld BEFORE INSERT ON refunds
    FOR EACH ROW EXECUTE FUNCTION refunds_admit_withheld();

-- A take-back books no more than the charge still holds of the customer's
-- money: a refund paid since the channel took the money (by a channel that
-- pays refunds of disputed charges) has already given it back once.
ALTER FUNCTION take_back_problem(jsonb, jsonb) RENAME TO take_back_problem_of_0042;

CREATE FUNCTION take_back_problem(targets jsonb, payload jsonb) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    problem text := take_back_problem_of_0042(targets, payload);
    subject recon_breaks;
    paid    charges;
    remaining bigint;
BEGIN
    IF problem IS NOT NULL THEN
        RETURN problem;
    END IF;
    SELECT * INTO subject FROM recon_breaks WHERE id = (targets -> 0 ->> 'id')::bigint;
    SELECT * INTO paid FROM charges
    WHERE public_id = subject.reference AND channel = subject.channel;
    remaining := paid.amount_captured - paid.amount_refunded - charge_taken_back(paid.id);
    IF subject.keel_amount - subject.channel_amount > remaining THEN
        RETURN format('charge %s has %s %s left after its refunds, less than the %s the '
                      'channel took back: settle it in the workbench', paid.public_id, remaining,
                      paid.currency, subject.keel_amount - subject.channel_amount);
    END IF;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION take_back_problem(jsonb, jsonb) FROM PUBLIC;

-- keel audit ledger checks each take-back after the fact as the trigger of
-- migration 0042 checked it when it was written: the posting is what an
-- executed take-back, approved by someone other than its proposer, reports
-- it posted; and while its break still names it (a statement withdrawn
-- reopens the break), it moved what the break saw keel hold beyond the
-- channel. The first posting that is not, or none; a function, so that the
-- service login, which runs the audit too, need not read who approved.
CREATE FUNCTION takeback_unsanctioned() RETURNS TABLE (posting text, break text, moved text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT t.id::text, coalesce(t.recon_break_id::text, 'none'), coalesce(m.moved, 0)::text
    FROM ledger_transactions t
    LEFT JOIN recon_breaks b ON b.id = t.recon_break_id AND b.status = 'resolved'
        AND b.resolution ->> 'kind' = 'recon_break.take_back'
        AND b.resolution ->> 'ledger_transaction' = t.id::text
    CROSS JOIN LATERAL (
        SELECT -sum(e.amount) AS moved FROM ledger_entries e
        JOIN ledger_accounts a ON a.id = e.account_id AND a.code LIKE 'channel\_clearing:%'
        WHERE e.transaction_id = t.id) m
    WHERE t.kind = 'channel_takeback'
      AND (NOT EXISTS (
               SELECT 1 FROM operator_actions o
               JOIN approvals p ON p.action_id = o.id AND p.decision = 'approve'
                   AND p.decided_by <> o.proposed_by
               WHERE o.kind = 'recon_break.take_back' AND o.status = 'executed'
                 AND o.after @> jsonb_build_array(jsonb_build_object('outcome', 'done',
                                                                     'new_id', t.id::text)))
           OR (b.id IS NOT NULL
               AND m.moved IS DISTINCT FROM (b.resolution ->> 'keel_amount')::bigint
                                            - (b.resolution ->> 'channel_amount')::bigint))
    ORDER BY t.id
    LIMIT 1
$$;
REVOKE EXECUTE ON FUNCTION takeback_unsanctioned() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION takeback_unsanctioned() TO keel_gateway, keel_auditor, keel_operator,
    keel_approver;
