-- A refund the channel paid out beyond keel, found larger again while the
-- owed case of its first difference is still open (a corrected statement):
-- the run leaves the rest unparked until a person settles that case
-- (migration 0050 parks only what the break's closed cases left unparked).
-- Until now charge_withheld skipped such a break whole, so the charge's
-- refunds were limited by the case alone and could pass what the channel
-- holds by the rest. The break now counts for what its difference exceeds
-- the owed cases charge_owed counts for it: together they come to the
-- channel's difference, whether the case is open, settled, or beside a new
-- one parking the rest.

-- What charge_owed counts of a refund break's owed cases: those open, and
-- those a person charged or wrote off.
CREATE FUNCTION refund_break_owed(of_break bigint) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT coalesce(sum(k.amount), 0)::bigint
    FROM suspense_cases k
    WHERE k.recon_break_id = of_break AND k.charge_id IS NULL AND k.direction = 'owed'
      AND (k.status IN ('open', 'in_review')
           OR k.resolution ->> 'kind' IN ('case.adjust', 'case.write_off'))
$$;
REVOKE EXECUTE ON FUNCTION refund_break_owed(bigint) FROM PUBLIC;

CREATE OR REPLACE FUNCTION charge_withheld(charge bigint) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT charge_taken_back(c.id) + charge_owed(c.id)
           + coalesce((SELECT sum(greatest(least(b.keel_amount, charge_clearing_holding(c.id))
                                           - greatest(b.channel_amount, 0), 0))
                       FROM recon_breaks b
                       WHERE b.channel = c.channel AND b.reference = c.public_id
                         AND b.kind = 'payment'
                         AND b.class IN ('status_mismatch', 'amount_mismatch')
                         AND b.status IN ('new', 'persisting', 'pending', 'accepted')
                         AND greatest(b.channel_amount, 0) < b.keel_amount
                         AND NOT recon_break_parked_as_owed(b)), 0)
           + coalesce((SELECT sum(greatest(b.channel_amount - greatest(b.keel_amount, 0)
                                           - refund_break_owed(b.id), 0))
                       FROM recon_breaks b
                       JOIN refunds r ON r.public_id = b.reference AND r.channel = b.channel
                       WHERE r.charge_id = c.id AND b.kind = 'refund'
                         AND b.status IN ('new', 'persisting', 'pending', 'accepted')
                         AND b.channel_amount > greatest(b.keel_amount, 0)), 0)
    FROM charges c
    WHERE c.id = charge
$$;

-- What a case has left parked in clearing: its opening, less what runs and
-- people put back (a write-off or a charge moves money out of suspense, not
-- back to clearing).
CREATE FUNCTION case_left_in_clearing(parked suspense_cases) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT coalesce(sum(e.amount), 0)::bigint
    FROM ledger_transactions t
    JOIN ledger_entries e ON e.transaction_id = t.id
    JOIN ledger_accounts a ON a.id = e.account_id
        AND a.code = 'channel_clearing:' || parked.currency
    WHERE t.id = parked.ledger_transaction_id OR t.suspense_case_id = parked.id
$$;
REVOKE EXECUTE ON FUNCTION case_left_in_clearing(suspense_cases) FROM PUBLIC;

-- What the cases of a break have left parked in clearing, with the sign
-- break_difference_to_park gives it.
CREATE FUNCTION break_cases_parked(broken recon_breaks) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT coalesce(sum(case_left_in_clearing(k)), 0)::bigint
    FROM suspense_cases k
    WHERE k.recon_break_id = broken.id
$$;
REVOKE EXECUTE ON FUNCTION break_cases_parked(recon_breaks) FROM PUBLIC;

-- A person's decision on a refund break's case settles the break unless the
-- break now shows the channel owed more than its cases parked as owed: found
-- larger while the case was open (the channel paid out further), or turned
-- from held to owed (a held case's refund the channel has since paid out
-- beyond keel, whether the person wrote the held money off or put it back on
-- clearing), or held the other way round. Such a break is left open and
-- raised instead, so that its next run parks what is missing beside the
-- closed case, as it does for a break found larger after the case closed,
-- and charge_withheld counts the break meanwhile. Before, the break was
-- resolved on amounts the case did not cover, and what it did not hold
-- stopped limiting the charge's refunds: the charge could be refunded past
-- what the channel holds. A held difference a person put back on clearing,
-- wholly or in part, stays their decision. (A payment's parking is on its
-- charge, which its run reads on keel's side: a further difference there is
-- a new difference.)
CREATE OR REPLACE FUNCTION suspense_case_resolves_break() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    broken recon_breaks;
    wanted bigint;
    parked bigint;
BEGIN
    IF NEW.resolution ->> 'kind' = 'recon_run' THEN
        RETURN NULL;
    END IF;
    SELECT * INTO broken FROM recon_breaks WHERE id = NEW.recon_break_id;
    IF broken.kind = 'refund' AND NEW.charge_id IS NULL AND broken.status <> 'resolved' THEN
        wanted := break_difference_to_park(broken, NULL);
        parked := break_cases_parked(broken);
        IF (wanted < 0 AND parked > wanted) OR (wanted > 0 AND parked < 0) THEN
            -- Raised after the case closed (resolved_at is the
            -- transaction's start), so the closed case does not stop the
            -- next one (migration 0026).
            UPDATE recon_breaks SET raised_at = clock_timestamp() WHERE id = broken.id;
            RETURN NULL;
        END IF;
    END IF;
    UPDATE recon_breaks b
    SET status = 'resolved', resolved_at = now(),
        resolution = jsonb_build_object('kind', 'case', 'case', NEW.id,
                                        'case_status', NEW.status,
                                        'action', NEW.resolution -> 'action',
                                        'channel_amount', b.channel_amount,
                                        'keel_amount', b.keel_amount)
    WHERE b.id = NEW.recon_break_id AND b.status <> 'resolved';
    RETURN NULL;
END
$$;

-- A match returns what the two breaks' open cases hold to clearing. A case
-- of either that a person already settled (written off, charged, adjusted)
-- took its money out of suspense for good, and a match would move the same
-- money a second time: migration 0026 refused that only for cases closed
-- since the break was last raised, and a break is raised after such a case
-- (above, by a further difference, or by a withdrawal). What a closed case
-- left parked in clearing is what tells, whenever it closed: a run's or a
-- match's return leaves nothing.
ALTER FUNCTION break_resolution_problem(text, jsonb, jsonb)
    RENAME TO break_resolution_problem_of_0048;
REVOKE EXECUTE ON FUNCTION break_resolution_problem_of_0048(text, jsonb, jsonb)
    FROM keel_operator, keel_approver;

CREATE FUNCTION break_resolution_problem(kind text, targets jsonb, payload jsonb) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    problem text;
    settled record;
BEGIN
    problem := break_resolution_problem_of_0048(kind, targets, payload);
    IF problem IS NOT NULL OR kind <> 'recon_break.match' THEN
        RETURN problem;
    END IF;
    FOR settled IN SELECT k.id, k.recon_break_id, k.status FROM suspense_cases k
                   WHERE k.recon_break_id IN (SELECT (t ->> 'id')::bigint
                                              FROM jsonb_array_elements(targets) t)
                     AND k.amount > 0 AND k.status NOT IN ('open', 'in_review')
                     AND case_left_in_clearing(k) <> 0
                   ORDER BY k.id LOOP
        RETURN format('case %s of break %s already moved its money (%s): resolve the rest '
                      'in the workbench', settled.id, settled.recon_break_id, settled.status);
    END LOOP;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION break_resolution_problem(text, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION break_resolution_problem(text, jsonb, jsonb)
    TO keel_operator, keel_approver;

-- An amount in minor units as its currency writes it: 4250 USD is 42.50,
-- 4250 JPY is 4250.
CREATE FUNCTION money_text(amount bigint, cur char(3)) RETURNS text
LANGUAGE sql STABLE SET search_path = keel, pg_temp AS $$
    SELECT round(amount::numeric / (10::numeric ^ c.exponent), c.exponent)::text || ' ' || cur
    FROM currencies c WHERE c.code = cur
$$;
REVOKE EXECUTE ON FUNCTION money_text(bigint, char) FROM PUBLIC;

-- The reason a run gives the case it opens named the break's amounts in
-- minor units beside the currency's code ("keel 4250 USD" for 42.50), which
-- the workbench shows a person as it is. A run's reason is rewritten in the
-- currency's major units as the case is opened; any other reason is kept.
CREATE FUNCTION suspense_cases_reason_in_major_units() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    broken recon_breaks;
BEGIN
    SELECT * INTO broken FROM recon_breaks WHERE id = NEW.recon_break_id;
    IF FOUND AND NEW.reason = format('reconciliation of %s %s: %s %s %s (the channel %s, keel %s %s)',
                                     broken.channel, broken.business_date, broken.class,
                                     broken.kind, broken.reference, broken.channel_amount,
                                     broken.keel_amount, broken.currency) THEN
        NEW.reason := format('reconciliation of %s %s: %s %s %s (the channel %s, keel %s)',
                             broken.channel, broken.business_date, broken.class, broken.kind,
                             broken.reference, money_text(broken.channel_amount, broken.currency),
                             money_text(broken.keel_amount, broken.currency));
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER suspense_cases_reason_in_major_units BEFORE INSERT ON suspense_cases
    FOR EACH ROW WHEN (NEW.recon_break_id IS NOT NULL)
    EXECUTE FUNCTION suspense_cases_reason_in_major_units();
