-- A charge the channel took back (a dispute lost, booked by an approved
-- recon_break.take_back, migration 0042) has already given the customer that
-- money. A refund of it would give it again: the channel might refuse it, but
-- a channel that pays it out would have the clearing account pay twice. So a
-- refund may ask for no more than the charge's capture less what was refunded,
-- what is being refunded, and what was taken back. keel's refund service asks
-- first and answers charge_disputed; this is the rule behind it, for every
-- login that writes refunds.
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

CREATE OR REPLACE FUNCTION refunds_admit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    holding   bigint;
    paid      charges;
    pending   bigint;
    taken     bigint;
BEGIN
    SELECT id INTO holding FROM suspense_cases
    WHERE charge_id = NEW.charge_id AND status IN ('open', 'in_review') AND amount > 0 LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'charge % is held in suspense case %: no refund until it is resolved',
            NEW.charge_id, holding
            USING ERRCODE = 'KL423';
    END IF;
    -- The charge locked first, as a take-back locks it: whichever comes
    -- second sees what the first did (each statement here reads anew).
    SELECT * INTO paid FROM charges WHERE id = NEW.charge_id FOR NO KEY UPDATE;
    SELECT coalesce(sum(amount), 0) INTO pending FROM refunds
    WHERE charge_id = NEW.charge_id AND status = 'pending';
    taken := charge_taken_back(NEW.charge_id);
    IF taken > 0
       AND NEW.amount > paid.amount_captured - paid.amount_refunded - pending - taken THEN
        RAISE EXCEPTION 'charge % was taken back by its channel (% %): % more cannot be refunded',
            paid.public_id, taken, paid.currency, NEW.amount
            USING ERRCODE = 'KL426',
                  DETAIL = format('captured %s, refunded %s, refunding %s, taken back %s',
                                  paid.amount_captured, paid.amount_refunded, pending, taken);
    END IF;
    RETURN NEW;
END
$$;
