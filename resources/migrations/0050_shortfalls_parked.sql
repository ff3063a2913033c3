-- keel schema v50: a shortfall past the settlement lag is parked too.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- A break that outlived the lag parked only a surplus, money the channel
-- holds beyond what keel booked. A shortfall, keel booking money the channel
-- does not show (a payment it never reported, a dispute it won, a refund it
-- paid out for more than keel let go), opened a case of 0: the suspense
-- account never showed money keel is owed, the charge kept failing its day's
-- run, and its refunds were limited only while a break stayed open.
--
-- Now the run writes one posting of kind suspense_owed: the channel clearing
-- account credited, suspense debited, on the charge where there is one. Its
-- case is `owed`. The day queries count it on keel's side of the charge, as
-- they count a parked surplus, so the charge reconciles from the next run on
-- and the case stays with a person. An owed case ends one of these ways:
--  - a later run finds the channel holding the money after all: the run
--    settles the charge's own cases to what the data shows, returning the
--    owed money to clearing (suspense_return) and parking only what is left;
--  - a take-back of its open break returns it to clearing and takes it back
--    from there, as migration 0042 does;
--  - a person charges it to the merchant or to a loss (case.adjust, each
--    posting charged, none on clearing) or writes it off (case.write_off).
-- Meanwhile, and after a person settled it, a refund of the charge goes no
-- further than the channel paid (charge_withheld).

ALTER TABLE suspense_cases
    ADD COLUMN direction text NOT NULL DEFAULT 'held' CHECK (direction IN ('held', 'owed')),
    -- What the case's money leaves in suspense, in the suspense account's
    -- credit terms: held money is credited to it, owed money debited.
    ADD COLUMN in_suspense bigint GENERATED ALWAYS AS
        (CASE direction WHEN 'owed' THEN -amount ELSE amount END) STORED,
    ADD CONSTRAINT suspense_cases_owed_by_a_break
        CHECK (direction = 'held' OR recon_break_id IS NOT NULL);

-- suspense_owed and suspense_return move money between clearing and
-- suspense on a run's judgement alone: only keel's own functions, which run
-- as the owner, write them. Invoker rights, so that current_user is the
-- inserting role.
CREATE FUNCTION ledger_run_postings_by_keel() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
BEGIN
    IF NOT pg_has_role(current_user, (SELECT c.relowner FROM pg_class c
                                      WHERE c.oid = 'keel.ledger_transactions'::regclass),
                       'MEMBER') THEN
        RAISE EXCEPTION 'a % posting is written only by a reconciliation run', NEW.kind
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
REVOKE EXECUTE ON FUNCTION ledger_run_postings_by_keel() FROM PUBLIC;
CREATE TRIGGER ledger_transactions_run_postings_by_keel BEFORE INSERT ON ledger_transactions
    FOR EACH ROW WHEN (NEW.kind IN ('suspense_owed', 'suspense_return'))
    EXECUTE FUNCTION ledger_run_postings_by_keel();

-- Money into suspense names its case (migration 0021): by the case's
-- transactions, or, for an owed case, by its opening posting, written
-- before the case (a case with money names its posting). Checked at commit.
CREATE OR REPLACE FUNCTION suspense_release_check() RETURNS trigger
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
        ON c.id = t.suspense_case_id
           OR (c.ledger_transaction_id = t.id AND c.direction = 'owed')
    WHERE t.id = NEW.transaction_id
    ORDER BY c.id LIMIT 1;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'ledger transaction % takes % out of suspense for no case',
            NEW.transaction_id, NEW.amount
            USING ERRCODE = 'check_violation';
    END IF;
    SELECT coalesce(sum(e.amount), 0) INTO released
    FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
    JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'suspense'
    WHERE (t.suspense_case_id = held.id OR t.id = held.ledger_transaction_id) AND e.amount > 0;
    IF released > held.amount THEN
        RAISE EXCEPTION 'case % holds % in suspense; % would leave it', held.id, held.amount,
            released
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;

-- What leaves suspense for an owed case, as migration 0021 bounds what
-- leaves it for a held one: named by the case's transactions, and never
-- more than the case parked.
CREATE FUNCTION suspense_owed_release_check() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    held    suspense_cases;
    settled bigint;
BEGIN
    SELECT c.* INTO held FROM ledger_transactions t
    JOIN suspense_cases c ON c.id = t.suspense_case_id AND c.direction = 'owed'
    JOIN ledger_accounts a ON a.id = NEW.account_id AND a.kind = 'suspense'
    WHERE t.id = NEW.transaction_id;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    SELECT coalesce(-sum(e.amount), 0) INTO settled
    FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
    JOIN ledger_accounts a ON a.id = e.account_id AND a.kind = 'suspense'
    WHERE t.suspense_case_id = held.id AND e.amount < 0;
    IF settled > held.amount THEN
        RAISE EXCEPTION 'case % is owed % in suspense; % would settle it', held.id,
            held.amount, settled
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION suspense_owed_release_check() FROM PUBLIC;
CREATE CONSTRAINT TRIGGER ledger_entries_suspense_owed_release
    AFTER INSERT ON ledger_entries
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.amount < 0) EXECUTE FUNCTION suspense_owed_release_check();

-- As the day queries count keel's side of a charge.
CREATE OR REPLACE FUNCTION charge_clearing_holding(charge bigint) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT coalesce(sum(e.amount), 0)
    FROM charges c
    JOIN ledger_transactions t ON t.charge_id = c.id
        AND t.kind IN ('capture', 'suspense_in', 'suspense_owed', 'suspense_return',
                       'channel_takeback')
    JOIN ledger_entries e ON e.transaction_id = t.id
    JOIN ledger_accounts a ON a.id = e.account_id
        AND a.code = 'channel_clearing:' || c.currency
    WHERE c.id = charge
$$;

-- Whether an open owed case of the break parked its difference as the
-- break now shows it: opened by the run that last found the break.
CREATE FUNCTION recon_break_parked_as_owed(b recon_breaks) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT EXISTS (SELECT 1 FROM suspense_cases k
                   JOIN recon_runs r ON r.id = b.last_run_id
                   WHERE k.recon_break_id = b.id AND k.direction = 'owed'
                     AND k.status IN ('open', 'in_review') AND k.opened_at >= r.run_at)
$$;
REVOKE EXECUTE ON FUNCTION recon_break_parked_as_owed(recon_breaks) FROM PUBLIC;

-- What runs found the channel never paid of the charge, and no one has
-- shown paid since:
--  - its own owed cases, open or charged and written off by a person, less
--    the surpluses runs parked on the charge after the first of them that a
--    person then settled the same way (the channel paid after all): a
--    surplus given back (migration 0044) nets a take-back instead, through
--    charge_taken_back, and one still open holds the charge from refunds;
--  - the owed cases of its refunds (the channel paid a refund out beyond
--    keel), open or settled the same way: settling one resolves its break,
--    which says nothing of what the channel holds. (A run returns an open
--    one whose break the data resolved.)
-- A case a run or a match returned, or a take-back took back (which
-- charge_taken_back counts), is not owed.
CREATE FUNCTION charge_owed(charge bigint) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    WITH settled(kind) AS (VALUES ('case.adjust'), ('case.write_off')),
    owed AS (
        SELECT k.amount, k.opened_at FROM suspense_cases k
        WHERE k.charge_id = charge AND k.direction = 'owed'
          AND (k.status IN ('open', 'in_review')
               OR k.resolution ->> 'kind' IN (SELECT kind FROM settled)))
    SELECT (greatest(0, coalesce((SELECT sum(amount) FROM owed), 0)
                        - coalesce((SELECT sum(k.amount) FROM suspense_cases k
                                    WHERE k.charge_id = charge AND k.direction = 'held'
                                      AND k.recon_break_id IS NOT NULL AND k.saga_id IS NULL
                                      AND k.resolution ->> 'kind' IN (SELECT kind FROM settled)
                                      AND k.opened_at > (SELECT min(opened_at) FROM owed)), 0))
            + coalesce((SELECT sum(k.amount) FROM suspense_cases k
                        JOIN recon_breaks b ON b.id = k.recon_break_id AND b.kind = 'refund'
                        JOIN refunds r ON r.public_id = b.reference AND r.channel = b.channel
                        WHERE r.charge_id = charge AND k.charge_id IS NULL
                          AND k.direction = 'owed'
                          AND (k.status IN ('open', 'in_review')
                               OR k.resolution ->> 'kind' IN (SELECT kind FROM settled))), 0))
        ::bigint
$$;
REVOKE EXECUTE ON FUNCTION charge_owed(bigint) FROM PUBLIC;

-- Migration 0043's rule with owed money in it. An open break's shortfall
-- counts unless an open owed case of it parked that very shortfall: one
-- opened by the run that last found the break (a run records itself and
-- opens its cases in one transaction, so both carry its now()). A break a
-- later run found again (the channel took more since) counts in full: its
-- keel side is net of the parking already. So does, before the lag, a
-- refund of the charge the channel paid out beyond keel. A channel's side
-- below 0 counts as 0, and keel's side no more than the charge's clearing
-- money, as a run parks it (money a person settled for a line later found
-- to be the charge's is counted on keel's side, and is not the channel's).
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
           + coalesce((SELECT sum(b.channel_amount - greatest(b.keel_amount, 0))
                       FROM recon_breaks b
                       JOIN refunds r ON r.public_id = b.reference AND r.channel = b.channel
                       WHERE r.charge_id = c.id AND b.kind = 'refund'
                         AND b.status IN ('new', 'persisting', 'pending', 'accepted')
                         AND b.channel_amount > greatest(b.keel_amount, 0)
                         -- A refund's side never counts its case's parking:
                         -- while charge_owed counts the case, the break is it.
                         AND NOT EXISTS (
                             SELECT 1 FROM suspense_cases k
                             WHERE k.recon_break_id = b.id AND k.direction = 'owed'
                               AND (k.status IN ('open', 'in_review')
                                    OR k.resolution ->> 'kind' IN ('case.adjust',
                                                                   'case.write_off')))), 0)
    FROM charges c
    WHERE c.id = charge
$$;

-- A charge is held from refunds while a case holds money the channel paid
-- for it (migration 0021). Money the channel did not pay is owed, and limits
-- a refund through charge_withheld instead.
CREATE OR REPLACE FUNCTION refunds_admit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    holding bigint;
BEGIN
    SELECT id INTO holding FROM suspense_cases
    WHERE charge_id = NEW.charge_id AND status IN ('open', 'in_review') AND amount > 0
      AND direction = 'held' LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'charge % is held in suspense case %: no refund until it is resolved',
            NEW.charge_id, holding
            USING ERRCODE = 'KL423';
    END IF;
    RETURN NEW;
END
$$;

-- A run's closing of a case is no person's decision on its break.
CREATE OR REPLACE FUNCTION suspense_case_resolves_break() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    IF NEW.resolution ->> 'kind' = 'recon_run' THEN
        RETURN NULL;
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

-- One posting between a currency's clearing and suspense accounts, of
-- `to_clearing` on clearing and its opposite on suspense.
CREATE FUNCTION post_between_clearing_and_suspense(posting_kind text, charge bigint,
                                                   of_case bigint, cur char(3),
                                                   to_clearing bigint, what text)
    RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    posting bigint;
BEGIN
    INSERT INTO ledger_transactions (kind, charge_id, description, suspense_case_id)
        VALUES (posting_kind, charge, what, of_case) RETURNING id INTO posting;
    INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
    SELECT posting, a.id, cur,
           CASE a.kind WHEN 'suspense' THEN -to_clearing ELSE to_clearing END
    FROM ledger_accounts a
    WHERE a.currency = cur AND (a.kind = 'suspense' OR a.code = 'channel_clearing:' || cur);
    RETURN posting;
END
$$;
REVOKE EXECUTE ON FUNCTION post_between_clearing_and_suspense(text, bigint, bigint, char,
                                                               bigint, text) FROM PUBLIC;

-- What a break past the lag parks, with its sign: above 0 money the channel
-- holds beyond keel (held), below 0 money keel booked that the channel does
-- not show (owed). The surplus rules are migration 0040's.
CREATE FUNCTION break_difference_to_park(broken recon_breaks, charge bigint) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT CASE
        -- A charge keel still holds open (authorized) could yet be captured
        -- and book the money itself: a surplus on it is only chased.
        WHEN broken.kind = 'payment' AND broken.class = 'status_mismatch'
             AND broken.channel_amount > broken.keel_amount AND charge IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM payment_state p WHERE p.charge_id = charge
                             AND p.state IN ('Failed', 'Canceled')) THEN 0
        WHEN broken.kind = 'payment' AND broken.class IN ('missing_at_keel', 'status_mismatch',
                                                        'amount_mismatch', 'duplicate')
             AND broken.channel_amount > broken.keel_amount
            THEN broken.channel_amount - broken.keel_amount
        -- keel holds more of its charge than the channel shows: no more than
        -- keel holds is owed, whatever the channel's lines net to.
        WHEN broken.kind = 'payment' AND charge IS NOT NULL
             AND broken.class IN ('missing_at_channel', 'status_mismatch', 'amount_mismatch',
                                  'duplicate')
             AND broken.keel_amount > greatest(broken.channel_amount, 0)
            THEN -(broken.keel_amount - greatest(broken.channel_amount, 0))
        -- A refund the channel made for less than keel let go, or undid: the
        -- channel holds the rest. A channel's side below 0 (an undoing with
        -- no refund line seen) holds no more than nothing.
        WHEN broken.kind = 'refund' AND broken.class IN ('amount_mismatch', 'missing_at_channel',
                                                       'status_mismatch')
             AND broken.keel_amount > greatest(broken.channel_amount, 0)
            THEN broken.keel_amount - greatest(broken.channel_amount, 0)
        -- A refund the channel paid out for more than keel let go, or that
        -- keel never made or failed: the channel owes keel the difference.
        WHEN broken.kind = 'refund' AND broken.class IN ('missing_at_keel', 'amount_mismatch',
                                                       'status_mismatch', 'duplicate')
             AND broken.channel_amount > greatest(broken.keel_amount, 0)
            THEN -(broken.channel_amount - greatest(broken.keel_amount, 0))
        ELSE 0 END
$$;
REVOKE EXECUTE ON FUNCTION break_difference_to_park(recon_breaks, bigint) FROM PUBLIC;

-- Cases a run parked on a charge, returned to clearing and closed as the
-- run's, so that what is parked on the charge is what the data shows now:
-- with `of_break` NULL, the charge's open cases that hold the other way
-- from `difference`; else that break's own open cases that hold the same
-- way, parked by an earlier run (the break was found again, the channel
-- differing further since). A case a person is acting on (its row locked)
-- is left, and the rest parked beside it. `still`: the difference left to
-- park once they are back in clearing.
CREATE FUNCTION settle_charge_cases(charge bigint, difference bigint, run bigint,
                                    of_break bigint, OUT still bigint, OUT closed jsonb)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    other    suspense_cases;
    returned bigint;
BEGIN
    still := difference;
    closed := '[]';
    FOR other IN SELECT k.* FROM suspense_cases k
                 WHERE k.charge_id = charge AND k.recon_break_id IS NOT NULL
                   AND k.saga_id IS NULL AND k.status IN ('open', 'in_review')
                   AND k.amount > 0
                   AND CASE WHEN of_break IS NULL THEN sign(k.in_suspense) = -sign(difference)
                            ELSE k.recon_break_id = of_break
                                 AND sign(k.in_suspense) = sign(difference)
                                 AND k.opened_at < now() END
                 ORDER BY k.id FOR UPDATE SKIP LOCKED LOOP
        returned := post_between_clearing_and_suspense(
            'suspense_return', charge, other.id, other.currency, -other.in_suspense,
            format('case %s: reconciliation run %s finds the channel holding otherwise',
                   other.id, run));
        UPDATE suspense_cases
        SET status = 'resolved', resolved_at = now(),
            resolution = jsonb_build_object('kind', 'recon_run', 'run', run,
                                            'ledger_transaction', returned)
        WHERE id = other.id;
        still := still + other.in_suspense;
        closed := closed || jsonb_build_object('case', other.id, 'break', other.recon_break_id,
                                               'returned', other.in_suspense,
                                               'currency', other.currency,
                                               'ledger_transaction', returned);
    END LOOP;
END
$$;
REVOKE EXECUTE ON FUNCTION settle_charge_cases(bigint, bigint, bigint, bigint)
    FROM PUBLIC;

-- A difference to park, an owed one no more than the charge's clearing
-- money `holding` beyond what the channel shows.
CREATE FUNCTION capped_owed(park bigint, holding bigint, channel_amount bigint) RETURNS bigint
LANGUAGE sql IMMUTABLE SET search_path = keel, pg_temp AS $$
    SELECT CASE WHEN park < 0 THEN greatest(park, -greatest(holding - greatest(channel_amount, 0),
                                                            0))
                ELSE park END
$$;
REVOKE EXECUTE ON FUNCTION capped_owed(bigint, bigint, bigint) FROM PUBLIC;

-- A break opens a case when it has none open and none closed since it was
-- last raised (migration 0026), or when its only open case is one a run
-- parked on its charge the other way, or one an earlier run parked on its
-- charge before a later run found the break again (each settled first), or
-- a case of 0 where there is now money to park (closed first).
CREATE OR REPLACE FUNCTION recon_open_cases(day_channel text, day date) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    broken   recon_breaks;
    run      bigint;
    charge   bigint;
    park     bigint;
    posting  bigint;
    what     text;
    settled  record;
    chased   suspense_cases;
    covered  boolean;
    own      bigint;
    closings jsonb := '[]';
    closing  jsonb;
    opened   integer := 0;
BEGIN
    SELECT max(id) INTO run FROM recon_runs
    WHERE channel = day_channel AND business_date = day;
    FOR broken IN SELECT b.* FROM recon_breaks b
                 WHERE b.channel = day_channel AND b.business_date = day
                   AND b.status IN ('new', 'persisting')
                   AND NOT EXISTS (
                       SELECT 1 FROM suspense_cases c
                       WHERE c.recon_break_id = b.id
                         AND (c.status IN ('open', 'in_review')
                              OR (c.resolved_at >= coalesce(b.raised_at, '-infinity')
                                  AND c.resolution ->> 'kind' IS DISTINCT FROM 'recon_run'))
                         AND NOT (c.status IN ('open', 'in_review') AND c.amount = 0)
                         AND NOT (b.kind = 'payment' AND c.charge_id IS NOT NULL
                                  AND c.status IN ('open', 'in_review') AND c.amount > 0
                                  AND c.opened_at < (SELECT r.run_at FROM recon_runs r
                                                     WHERE r.id = b.last_run_id))
                         AND NOT (b.kind = 'payment' AND c.charge_id IS NOT NULL
                                  AND c.status IN ('open', 'in_review') AND c.amount > 0
                                  AND c.direction <> CASE WHEN b.channel_amount > b.keel_amount
                                                          THEN 'held' ELSE 'owed' END))
                 ORDER BY b.id FOR UPDATE LOOP
        -- A payment's parked money is its charge's, so that its next run sees
        -- it booked; a refund's is the case's alone.
        charge := CASE WHEN broken.kind = 'payment' THEN
                      (SELECT id FROM charges WHERE public_id = broken.reference
                       AND channel = day_channel) END;
        -- A charge the channel is still answering for waits for the next run.
        CONTINUE WHEN charge IS NOT NULL AND channel_operation_in_flight(charge);
        park := break_difference_to_park(broken, charge);
        IF charge IS NOT NULL AND park <> 0 THEN
            settled := settle_charge_cases(charge, park, run, NULL);
            park := settled.still;
            closings := closings || settled.closed;
            covered := jsonb_array_length(settled.closed) > 0;
            -- The break's own case from an earlier run is returned only to
            -- park a different amount: a difference the cap below keeps at
            -- what is parked already would return and park it on every run.
            own := coalesce((SELECT sum(k.in_suspense) FROM suspense_cases k
                             WHERE k.recon_break_id = broken.id AND k.charge_id = charge
                               AND k.status IN ('open', 'in_review') AND k.amount > 0
                               AND sign(k.in_suspense) = sign(park) AND k.opened_at < now()),
                            0);
            IF park <> 0 AND own <> 0
               AND capped_owed(park + own, charge_clearing_holding(charge) - own,
                               broken.channel_amount) <> own THEN
                settled := settle_charge_cases(charge, park, run, broken.id);
                park := settled.still;
                closings := closings || settled.closed;
            END IF;
            -- What the run had parked the other way covers the difference:
            -- the next run finds the charge reconciled, and there is nothing
            -- left to chase. The break is resolved now, as that run would,
            -- so that no refund limit reads its stale difference meanwhile.
            IF park = 0 AND covered THEN
                UPDATE recon_breaks SET status = 'resolved', resolved_at = now()
                WHERE id = broken.id;
                CONTINUE;
            END IF;
            -- No more is owed on a charge than its own clearing money beyond
            -- what the channel shows: a result claiming more is not the
            -- books', and money a person settled for a line later found to be
            -- the charge's (SettledUnderChannelIds) is not the channel's debt.
            park := capped_owed(park, charge_clearing_holding(charge), broken.channel_amount);
        END IF;
        -- A case of 0 that only chased the difference gives way to one that
        -- parks it: a shortfall's case opened before this migration, or a
        -- surplus on a charge that was still open and has failed since.
        IF park <> 0 THEN
            FOR chased IN SELECT k.* FROM suspense_cases k
                          WHERE k.recon_break_id = broken.id AND k.amount = 0
                            AND k.status IN ('open', 'in_review')
                          ORDER BY k.id FOR UPDATE SKIP LOCKED LOOP
                UPDATE suspense_cases
                SET status = 'resolved', resolved_at = now(),
                    resolution = jsonb_build_object('kind', 'recon_run', 'run', run,
                                                    'ledger_transaction', NULL)
                WHERE id = chased.id;
                closings := closings || jsonb_build_object('case', chased.id,
                                                           'break', broken.id, 'returned', 0,
                                                           'currency', chased.currency,
                                                           'ledger_transaction', NULL);
            END LOOP;
        END IF;
        -- A case of the break's own still open (a person is acting on it,
        -- or it holds the way the break does) is left for the next run.
        CONTINUE WHEN EXISTS (SELECT 1 FROM suspense_cases
                              WHERE recon_break_id = broken.id
                                AND status IN ('open', 'in_review'));
        -- Money parked for this break before, by a case since closed, that
        -- is still in clearing (written off, say, not returned) is parked
        -- already: only the rest is, in the same direction. A charge's parked
        -- money is on the charge, which its run counts on keel's side instead.
        IF charge IS NULL AND park <> 0 THEN
            park := park - coalesce((
                SELECT sum(e.amount) FROM suspense_cases k
                JOIN ledger_transactions t
                    ON t.id = k.ledger_transaction_id OR t.suspense_case_id = k.id
                JOIN ledger_entries e ON e.transaction_id = t.id
                JOIN ledger_accounts a ON a.id = e.account_id
                    AND a.code = 'channel_clearing:' || broken.currency
                WHERE k.recon_break_id = broken.id), 0);
            park := CASE WHEN break_difference_to_park(broken, charge) > 0
                         THEN greatest(park, 0) ELSE least(park, 0) END;
        END IF;
        what := format('reconciliation of %s %s: %s %s %s (the channel %s, keel %s %s)',
                       day_channel, day, broken.class, broken.kind, broken.reference,
                       broken.channel_amount, broken.keel_amount, broken.currency);
        posting := CASE WHEN park <> 0 THEN
            post_between_clearing_and_suspense(
                CASE WHEN park > 0 THEN 'suspense_in' ELSE 'suspense_owed' END, charge, NULL,
                broken.currency, park, what) END;
        INSERT INTO suspense_cases (charge_id, currency, amount, reason, ledger_transaction_id,
                                    recon_break_id, direction)
            VALUES (charge, broken.currency, abs(park), what, posting, broken.id,
                    CASE WHEN park < 0 THEN 'owed' ELSE 'held' END);
        opened := opened + 1;
    END LOOP;
    -- Audited after every other write, as every writer takes the audit
    -- chain's head last.
    FOR closing IN SELECT value FROM jsonb_array_elements(closings) LOOP
        PERFORM audit('case.close_by_run', 'suspense_case', closing ->> 'case',
                      jsonb_build_object('run', run) || (closing - 'case'));
    END LOOP;
    RETURN opened;
END
$$;

-- Migration 0034's recording of a run, returning what a closed case of no
-- charge parked in its own direction: owed money goes back to clearing as
-- held money comes out of it.
CREATE OR REPLACE FUNCTION recon_record_run(run_channel text, run_date date, result text,
                                            day_lines integer, OUT run_id bigint,
                                            OUT cases_opened integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    document json;
    lag_over boolean;
    held     suspense_cases;
    posted   bigint;
    closed   jsonb := '[]';
    closing  jsonb;
BEGIN
    BEGIN
        document := result::json;
    EXCEPTION WHEN invalid_text_representation THEN
        RAISE EXCEPTION 'a run''s result must be its canonical JSON document'
            USING ERRCODE = '22023';
    END;
    IF document ->> 'channel' IS DISTINCT FROM run_channel
       OR document ->> 'date' IS DISTINCT FROM to_char(run_date, 'YYYY-MM-DD')
       OR json_typeof(document -> 'matched') IS DISTINCT FROM 'number'
       OR json_typeof(document -> 'breaks') IS DISTINCT FROM 'array' THEN
        RAISE EXCEPTION 'the result is not of channel % on %, or lacks matched and breaks',
            run_channel, run_date USING ERRCODE = '22023';
    END IF;
    SELECT now() >= ((run_date + 1)::timestamp + settlement_lag) AT TIME ZONE time_zone
        INTO lag_over FROM recon_channels WHERE channel = run_channel;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'keel knows no channel %', run_channel USING ERRCODE = '22023';
    END IF;
    INSERT INTO recon_runs (channel, business_date, matched, breaks, result_sha256, result,
                            day_lines)
    VALUES (run_channel, run_date, (document ->> 'matched')::integer,
            json_array_length(document -> 'breaks'), sha256(convert_to(result, 'UTF8')), document,
            recon_record_run.day_lines)
    RETURNING id INTO run_id;
    INSERT INTO recon_breaks AS b (channel, business_date, class, kind, reference, currency,
                                   channel_amount, keel_amount, status, first_run_id, last_run_id)
    SELECT run_channel, run_date, x.class, x.kind, x.reference, x.currency, x.channel_amount,
           x.keel_amount,
           CASE WHEN x.class IN ('missing_at_channel', 'status_mismatch') AND NOT lag_over
                THEN 'pending' ELSE 'new' END,
           run_id, run_id
    FROM json_to_recordset(document -> 'breaks')
        AS x(class text, kind text, reference text, currency text, channel_amount bigint,
             keel_amount bigint)
    ON CONFLICT (channel, business_date, class, kind, reference) DO UPDATE SET
        currency = EXCLUDED.currency, channel_amount = EXCLUDED.channel_amount,
        keel_amount = EXCLUDED.keel_amount, last_run_id = EXCLUDED.last_run_id,
        resolved_at = NULL,
        status = CASE WHEN EXCLUDED.status = 'pending' THEN 'pending'
                      WHEN b.status IN ('new', 'persisting', 'accepted') THEN 'persisting'
                      ELSE 'new' END;
    -- What this run no longer finds is resolved by the data.
    UPDATE recon_breaks SET status = 'resolved', resolved_at = now()
    WHERE channel = run_channel AND business_date = run_date AND status <> 'resolved'
      AND last_run_id <> run_id;
    -- The breaks are resolved before their cases close, so that closing a
    -- case records no person's decision on its break
    -- (suspense_case_resolves_break finds it resolved already).
    FOR held IN SELECT k.* FROM suspense_cases k
                JOIN recon_breaks b ON b.id = k.recon_break_id
                WHERE b.channel = run_channel AND b.business_date = run_date
                  AND b.status = 'resolved' AND k.status IN ('open', 'in_review')
                  AND (k.charge_id IS NULL OR k.amount = 0)
                ORDER BY k.id FOR UPDATE OF k SKIP LOCKED LOOP
        posted := NULL;
        IF held.amount > 0 THEN
            INSERT INTO ledger_transactions (kind, description, suspense_case_id)
            VALUES ('adjustment',
                    format('case %s: reconciliation run %s of %s %s no longer finds its break',
                           held.id, run_id, run_channel, run_date), held.id)
            RETURNING id INTO posted;
            INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
            SELECT posted, a.id, a.currency,
                   CASE a.kind WHEN 'suspense' THEN held.in_suspense ELSE -held.in_suspense END
            FROM ledger_accounts a
            WHERE a.currency = held.currency
              AND (a.kind = 'suspense' OR a.code = 'channel_clearing:' || held.currency);
        END IF;
        UPDATE suspense_cases
        SET status = 'resolved', resolved_at = now(),
            resolution = jsonb_build_object('kind', 'recon_run', 'run', run_id,
                                            'ledger_transaction', posted)
        WHERE id = held.id;
        closed := closed || jsonb_build_object('case', held.id, 'break', held.recon_break_id,
                                               'returned', held.in_suspense,
                                               'currency', held.currency,
                                               'ledger_transaction', posted);
    END LOOP;
    cases_opened := CASE WHEN lag_over THEN recon_open_cases(run_channel, run_date) ELSE 0 END;
    -- Audited last, as every writer takes the audit chain's head after its
    -- other rows, so that none waits for a row while holding the head.
    FOR closing IN SELECT value FROM jsonb_array_elements(closed) LOOP
        PERFORM audit('case.close_by_run', 'suspense_case', closing ->> 'case',
                      jsonb_build_object('run', run_id) || (closing - 'case'));
    END LOOP;
END
$$;

-- Migration 0021's resolution of a case (as 0046 named it), handing out
-- what the case leaves in suspense in its own direction: a write-off of owed
-- money is a loss, of held money a gain.
CREATE OR REPLACE FUNCTION case_resolution_with_break_held(proposal operator_actions) RETURNS jsonb
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
                 'account', 'suspense_write_off:' || held.currency, 'amount', -held.in_suspense)) END
    END;
    IF held.amount > 0 THEN
        INSERT INTO ledger_transactions (kind, charge_id, description, suspense_case_id)
        VALUES (CASE proposal.kind WHEN 'case.adjust' THEN 'adjustment' ELSE 'write_off' END,
                held.charge_id,
                format('case %s, action #%s: %s', held.id, proposal.id, proposal.reason), held.id)
        RETURNING id INTO posted;
        INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
        SELECT posted, a.id, a.currency, held.in_suspense
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

-- Migration 0029's check of an adjustment's postings. Of an owed case each
-- posting charges part of what the channel did not pay to the merchant or
-- to one of keel's loss accounts, never to clearing.
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
        IF held.direction = 'held' AND (posting ->> 'amount')::bigint > 0 THEN
            RETURN format('posting %s: an adjustment only hands out what case %s holds; each '
                          'posting receives part of it (a negative amount), none is charged',
                          posting, case_id);
        END IF;
        IF held.direction = 'owed' AND (posting ->> 'amount')::bigint < 0 THEN
            RETURN format('posting %s: case %s is owed by its channel; an adjustment charges '
                          'what the channel did not pay (a positive amount) to whoever bears '
                          'it, and hands out nothing', posting, case_id);
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
        -- Owed money left clearing when the run parked it; only a later
        -- run, from the channel's data, puts it back there. (Before, an
        -- account of no merchant made the merchant's test NULL and let any
        -- such account through: coalesced now.)
        IF NOT (account.case_adjustable
                OR coalesce(account.merchant_id = merchant, false)
                OR (held.direction = 'held'
                    AND (held.charge_id IS NOT NULL OR held.channel_notification_id IS NOT NULL
                         OR held.recon_break_id IS NOT NULL)
                    AND account.code = 'channel_clearing:' || held.currency))
        THEN
            RETURN format('posting %s: account %s is outside case %s (its merchant''s accounts, '
                          'its charge''s or its break''s channel clearing account and keel''s '
                          'fee and loss accounts are)', posting, account.code, case_id);
        END IF;
        total := total + (posting ->> 'amount')::bigint;
    END LOOP;
    IF total <> -held.in_suspense THEN
        RETURN format('the postings sum to %s %s; with the suspense leg of %s they must come to '
                      'zero (they should sum to %s)', total, held.currency, held.in_suspense,
                      -held.in_suspense);
    END IF;
    RETURN NULL;
END
$$;

-- A dispute the channel won, past the lag, has its shortfall parked by the
-- run as owed. Its take-back, while the break is still open, first returns
-- the owed money to clearing (closing the case as the take-back's), then
-- takes it back from clearing as before (migration 0042): every rule that
-- reads take-backs off clearing holds as it did. After the next run the
-- charge reconciles, the break is resolved, and the case is settled in the
-- workbench (case.adjust, case.write_off).

-- What the break's open case parked as owed, or 0.
CREATE FUNCTION break_owed_case_amount(subject bigint) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT coalesce(sum(amount), 0)::bigint FROM suspense_cases
    WHERE recon_break_id = subject AND status IN ('open', 'in_review') AND direction = 'owed'
$$;
REVOKE EXECUTE ON FUNCTION break_owed_case_amount(bigint) FROM PUBLIC;

-- Migration 0042's check of a take-back, admitting a break whose case
-- parked exactly the shortfall the take-back books.
CREATE OR REPLACE FUNCTION take_back_problem_of_0042(targets jsonb, payload jsonb) RETURNS text
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
    -- What the break's case parked as owed left clearing after the run.
    IF charge_clearing_holding(paid.id) + break_owed_case_amount(subject.id)
       <> subject.keel_amount THEN
        RETURN format('charge %s holds %s %s in clearing, not the %s break %s saw: reconcile '
                      'its day again first', paid.public_id, charge_clearing_holding(paid.id),
                      subject.currency, subject.keel_amount, subject.id);
    END IF;
    SELECT * INTO held FROM suspense_cases
    WHERE recon_break_id = subject.id AND status IN ('open', 'in_review');
    IF FOUND AND held.amount <> 0
       AND NOT (held.direction = 'owed'
                AND held.amount = subject.keel_amount - subject.channel_amount) THEN
        RETURN format('case %s of break %s holds %s: resolve it in the workbench', held.id,
                      subject.id, held.amount);
    END IF;
    RETURN NULL;
END
$$;


-- Migration 0042's take-back, with an owed case returned before it.
CREATE OR REPLACE FUNCTION execute_take_back(proposal operator_actions) RETURNS jsonb
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
    returned bigint;
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
    -- An owed case of the break goes back to clearing first, as the
    -- take-back's: the money is then taken back from there.
    SELECT * INTO held FROM suspense_cases
    WHERE recon_break_id = subject.id AND status IN ('open', 'in_review');
    IF held.direction = 'owed' THEN
        returned := post_between_clearing_and_suspense(
            'suspense_return', paid.id, held.id, held.currency, -held.in_suspense,
            format('case %s, action #%s: returned to clearing to be taken back', held.id,
                   proposal.id));
        UPDATE suspense_cases
        SET status = 'resolved', resolved_at = now(),
            resolution = jsonb_build_object('action', proposal.id, 'kind', proposal.kind,
                                            'reason', proposal.reason,
                                            'ledger_transaction', returned)
        WHERE id = held.id;
    END IF;
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
    IF held.id IS NOT NULL AND held.direction = 'held' THEN
        PERFORM close_break_case(held, proposal); -- a case of 0: nothing is posted
    END IF;
    UPDATE recon_breaks
    SET resolution = resolution || jsonb_build_object('ledger_transaction', posted)
    WHERE id = subject.id;
    RETURN jsonb_build_array(jsonb_build_object('id', target ->> 'id', 'outcome', 'done',
                                                'new_id', posted::text));
END
$$;

-- Migration 0026's closing of a break's case by a resolution, returning an
-- owed case's money to clearing as a run would: counted on its charge's
-- side, as its parking was.
CREATE OR REPLACE FUNCTION close_break_case(held suspense_cases, proposal operator_actions) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    posted bigint;
BEGIN
    IF held.amount > 0 AND held.direction = 'owed' THEN
        posted := post_between_clearing_and_suspense(
            'suspense_return', held.charge_id, held.id, held.currency, held.amount,
            format('case %s, action #%s: %s', held.id, proposal.id, proposal.reason));
    ELSIF held.amount > 0 THEN
        INSERT INTO ledger_transactions (kind, charge_id, description, suspense_case_id)
        VALUES ('adjustment', held.charge_id,
                format('case %s, action #%s: %s', held.id, proposal.id, proposal.reason), held.id)
        RETURNING id INTO posted;
        INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
        SELECT posted, a.id, a.currency,
               CASE a.kind WHEN 'suspense' THEN held.amount ELSE -held.amount END
        FROM ledger_accounts a
        WHERE a.currency = held.currency
          AND (a.kind = 'suspense' OR a.code = 'channel_clearing:' || held.currency);
    END IF;
    UPDATE suspense_cases
    SET status = 'resolved', resolved_at = now(),
        resolution = jsonb_build_object('action', proposal.id, 'kind', proposal.kind,
                                        'reason', proposal.reason, 'ledger_transaction', posted)
    WHERE id = held.id;
    RETURN posted;
END
$$;

