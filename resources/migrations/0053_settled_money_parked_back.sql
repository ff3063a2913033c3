-- keel schema v53: money a person settled that the channel's statements no
-- longer show is parked back.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- A person settles a case of no charge for good: writes an owed refund's
-- difference off, or hands a line's held money out. When a later statement
-- no longer shows the difference (the channel gave the refund's money back,
-- or the line is withdrawn), its run resolved the break and left what the
-- case took out of clearing there: clearing no longer held what the channel
-- does, nothing flagged it, and the charge's refunds stayed limited by a
-- debt the channel had repaid. Now the run parks what the settled cases of
-- such a break left in clearing the other way, once, in a case of its own
-- (direction by sign, as any run's case): clearing again holds what the
-- channel does, and a person decides what becomes of the money (a refund's
-- write-off written back, a merchant charged for money handed out). While
-- the channel goes on not showing the difference, runs keep that case; the
-- run that finds the break again (a statement corrected back) returns it,
-- and the break is then judged as it was before the case.
--
-- A refund's owed money is read from the same postings: what its cases of no
-- charge left in clearing, net of held and owed. The case above frees the
-- charge's refunds; and a held case written off before its refund turned
-- owed no longer counts twice (stop 61's known gap).

-- A case that parks back what settled cases left: the run that finds its
-- break again returns it, whatever the break's status then.
ALTER TABLE suspense_cases ADD COLUMN parks_back boolean NOT NULL DEFAULT false;

-- What the cases of no charge of a break have left in clearing, with the
-- sign break_difference_to_park gives it (held above 0, owed below), in the
-- break's currency: a break the channel's statement moved to another
-- currency is judged in that one (as migration 0050's parking reads it).
CREATE FUNCTION break_no_charge_parked(broken recon_breaks) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT coalesce(sum(case_left_in_clearing(k)), 0)::bigint
    FROM suspense_cases k
    WHERE k.recon_break_id = broken.id AND k.charge_id IS NULL
      AND k.currency = broken.currency
$$;
REVOKE EXECUTE ON FUNCTION break_no_charge_parked(recon_breaks) FROM PUBLIC;

-- What charge_owed counts of a refund break: the money its cases keep out of
-- clearing as owed, net of what they hold. Money a case holds counts once a
-- person settled the case, not while it is open: a run's result (the service
-- login writes it) that leaves a break out or shows it smaller frees no
-- refund by itself. An open owed case counts at once.
CREATE OR REPLACE FUNCTION refund_break_owed(of_break bigint) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT greatest(0, -coalesce(sum(case_left_in_clearing(k)), 0))::bigint
    FROM recon_breaks b
    JOIN suspense_cases k ON k.recon_break_id = b.id AND k.charge_id IS NULL
        AND k.currency = b.currency
    WHERE b.id = of_break
      AND NOT (k.status IN ('open', 'in_review') AND case_left_in_clearing(k) > 0)
$$;

-- A payment line judged as a charge's by the channel's id: its reference
-- names no charge of keel's, its channel id exactly one, in the break's
-- currency (as SettledUnderChannelIds finds them). Money a person settled
-- for such a line is counted on the charge's side by its run.
CREATE FUNCTION break_line_is_a_charges(broken recon_breaks) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT broken.kind = 'payment' AND broken.class = 'missing_at_keel'
       AND EXISTS (SELECT 1 FROM recon_lines l
                   JOIN charges c ON c.channel = l.channel
                       AND c.channel_reference = l.channel_reference
                       AND c.currency = broken.currency
                   WHERE l.reference = broken.reference AND l.channel = broken.channel
                     AND l.kind = 'payment'
                     AND (SELECT count(*) FROM charges o
                          WHERE o.channel = l.channel
                            AND o.channel_reference = l.channel_reference) = 1)
$$;
REVOKE EXECUTE ON FUNCTION break_line_is_a_charges(recon_breaks) FROM PUBLIC;

-- What a case parking money back should park now, with its sign: for a
-- break the run did not find, what its closed cases left in clearing, the
-- other way; for one it found open, what it shows less what its closed cases
-- left, where that points the other way or those cases took money against
-- the break (the case then holds the difference with it); nothing for one it found and
-- kept resolved by a person's decision. NULL where a run leaves it be (a
-- pending or accepted break).
CREATE FUNCTION parks_back_wanted(broken recon_breaks, run_found_it boolean) RETURNS bigint
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    closed bigint;
    wanted bigint;
BEGIN
    SELECT coalesce(sum(case_left_in_clearing(k)), 0) INTO closed
    FROM suspense_cases k
    WHERE k.recon_break_id = broken.id AND k.charge_id IS NULL
      AND k.currency = broken.currency AND k.status NOT IN ('open', 'in_review');
    IF broken.status = 'resolved' THEN
        RETURN CASE WHEN run_found_it THEN 0 ELSE -closed END;
    ELSIF broken.status IN ('new', 'persisting') THEN
        wanted := break_difference_to_park(broken, NULL);
        RETURN CASE WHEN wanted - closed <> 0
                         AND (sign(wanted - closed) <> sign(wanted)
                              OR sign(closed) = -sign(wanted))
                    THEN wanted - closed ELSE 0 END;
    END IF;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION parks_back_wanted(recon_breaks, boolean) FROM PUBLIC;

-- A break of no charge found again smaller, its open case parking more the
-- same way than the break now shows (a corrected statement: the channel paid
-- a refund out beyond keel by less than first seen). A run parked no further
-- difference beside an open case, and a person could settle the case only
-- whole: clearing ended short of the channel by the rest. The run now
-- returns such a case, and parks what the break shows in a new one, as it
-- does for a difference found again larger on a charge.
CREATE FUNCTION parks_more_than_found(broken recon_breaks, parked suspense_cases)
    RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT broken.status IN ('new', 'persisting')
       AND (broken.kind = 'refund' OR broken.class = 'missing_at_keel')
       AND parked.charge_id IS NULL AND parked.amount > 0 AND NOT parked.parks_back
       AND sign(case_left_in_clearing(parked)) = sign(break_difference_to_park(broken, NULL))
       AND abs(break_no_charge_parked(broken)) > abs(break_difference_to_park(broken, NULL))
$$;
REVOKE EXECUTE ON FUNCTION parks_more_than_found(recon_breaks, suspense_cases) FROM PUBLIC;

-- The step itself. A break the run did not find (resolved, last found by an
-- earlier run), with no open case: what its settled cases of no charge left
-- in clearing is parked the other way. A payment line the run judges as a
-- charge's by the channel's id is left to that charge's run, which counts
-- the money on keel's side. A break a person is acting on (locked) waits for
-- the day's next run.
CREATE FUNCTION recon_park_back_settled(day_channel text, day date, run bigint) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    broken  recon_breaks;
    park    bigint;
    what    text;
    posting bigint;
    opened  integer := 0;
BEGIN
    FOR broken IN SELECT b.* FROM recon_breaks b
                  WHERE b.channel = day_channel AND b.business_date = day
                    AND b.status = 'resolved' AND b.last_run_id <> run
                    AND EXISTS (SELECT 1 FROM suspense_cases k
                                WHERE k.recon_break_id = b.id AND k.charge_id IS NULL)
                    AND NOT EXISTS (SELECT 1 FROM suspense_cases k
                                    WHERE k.recon_break_id = b.id
                                      AND k.status IN ('open', 'in_review'))
                    AND NOT break_line_is_a_charges(b)
                    -- A person who settled a case this step parked back, since
                    -- the break was last found, decided: a put-back stays.
                    -- (An excess a run parked back while it found the break
                    -- was opened by that run, not after it.)
                    AND NOT EXISTS (SELECT 1 FROM suspense_cases k
                                    JOIN recon_runs r ON r.id = b.last_run_id
                                    WHERE k.recon_break_id = b.id AND k.parks_back
                                      AND k.status NOT IN ('open', 'in_review')
                                      AND k.resolution ->> 'kind' <> 'recon_run'
                                      AND k.opened_at > r.run_at)
                  ORDER BY b.id FOR UPDATE SKIP LOCKED LOOP
        park := -break_no_charge_parked(broken);
        CONTINUE WHEN park = 0;
        what := format('reconciliation of %s %s: %s %s %s is no longer in the channel''s '
                       'statements; %s a person settled is parked back',
                       day_channel, day, broken.class, broken.kind, broken.reference,
                       money_text(abs(park), broken.currency));
        posting := post_between_clearing_and_suspense(
            CASE WHEN park > 0 THEN 'suspense_in' ELSE 'suspense_owed' END, NULL, NULL,
            broken.currency, park, what);
        INSERT INTO suspense_cases (charge_id, currency, amount, reason, ledger_transaction_id,
                                    recon_break_id, direction, parks_back)
            VALUES (NULL, broken.currency, abs(park), what, posting, broken.id,
                    CASE WHEN park < 0 THEN 'owed' ELSE 'held' END, true);
        opened := opened + 1;
    END LOOP;
    RETURN opened;
END
$$;
REVOKE EXECUTE ON FUNCTION recon_park_back_settled(text, date, bigint) FROM PUBLIC;

-- Migration 0050's opening of a day's cases, with two changes. For a break of
-- no charge, what its closed cases left in clearing is subtracted before
-- anything else, and the rest is parked whichever way it points: a break
-- found again smaller than a settled case parked (a written-off debt the
-- channel partly repaid) left the excess in clearing behind a case of 0. And
-- a case of 0 is closed only where there is money to park now: closed and
-- opened again by every run, it churned.
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
    closed   bigint;
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
        -- Money parked for this break before, by a case since closed, that
        -- is still in clearing (written off, say, not returned) is parked
        -- already: only the rest is. Where those cases parked more than the
        -- break now shows, the rest is parked the other way: held to the
        -- break's direction, it stayed in clearing; where the break shows
        -- none, all of it is. A charge's parked money is on the charge, which
        -- its run counts on keel's side instead.
        closed := 0;
        IF charge IS NULL THEN
            closed := coalesce((SELECT sum(case_left_in_clearing(k))
                                FROM suspense_cases k
                                WHERE k.recon_break_id = broken.id
                                  AND k.currency = broken.currency
                                  AND k.status NOT IN ('open', 'in_review')), 0);
            park := park - closed;
        END IF;
        -- A case of 0 that only chased the difference gives way to one that
        -- parks it: a shortfall's case opened before migration 0050, or a
        -- surplus on a charge that was still open and has failed since. Only
        -- where there is money to park: one closed and opened again by every
        -- run churned.
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
        what := format('reconciliation of %s %s: %s %s %s (the channel %s, keel %s %s)',
                       day_channel, day, broken.class, broken.kind, broken.reference,
                       broken.channel_amount, broken.keel_amount, broken.currency);
        posting := CASE WHEN park <> 0 THEN
            post_between_clearing_and_suspense(
                CASE WHEN park > 0 THEN 'suspense_in' ELSE 'suspense_owed' END, charge, NULL,
                broken.currency, park, what) END;
        -- Money of no charge parked against the break's own direction, or
        -- beside closed cases that took money against it, holds what settled
        -- cases took beyond what the break now shows: it parks money back,
        -- and is returned once the break no longer calls for it.
        INSERT INTO suspense_cases (charge_id, currency, amount, reason, ledger_transaction_id,
                                    recon_break_id, direction, parks_back)
            VALUES (charge, broken.currency, abs(park), what, posting, broken.id,
                    CASE WHEN park < 0 THEN 'owed' ELSE 'held' END,
                    charge IS NULL AND park <> 0
                    AND (sign(park) <> sign(break_difference_to_park(broken, NULL))
                         OR sign(closed) = -sign(break_difference_to_park(broken, NULL))));
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


-- Migration 0050's recording of a run, with two changes: a case that parks
-- back what settled cases left (above) is returned by the run that finds its
-- break again, and by no other; and the step runs after the day's cases are
-- opened.
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
        -- Found with other amounts, it is a new difference: a case closed
        -- before (a case of 0 a person closed, say) no longer stops the one
        -- that parks it (migration 0026's rule reads this).
        raised_at = CASE WHEN (b.currency, b.channel_amount, b.keel_amount)
                              IS DISTINCT FROM (EXCLUDED.currency, EXCLUDED.channel_amount,
                                                EXCLUDED.keel_amount)
                         THEN now() ELSE b.raised_at END,
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
                  AND k.status IN ('open', 'in_review')
                  AND ((b.status = 'resolved' AND (k.charge_id IS NULL OR k.amount = 0)
                        AND NOT k.parks_back)
                       OR (k.parks_back
                           AND (coalesce(parks_back_wanted(b, b.last_run_id = run_id)
                                         <> case_left_in_clearing(k), false)
                                OR (b.status = 'resolved' AND break_line_is_a_charges(b))))
                       OR (lag_over AND parks_more_than_found(b, k)))
                ORDER BY k.id FOR UPDATE OF k SKIP LOCKED LOOP
        posted := NULL;
        IF held.amount > 0 THEN
            INSERT INTO ledger_transactions (kind, description, suspense_case_id)
            VALUES ('adjustment',
                    format('case %s: reconciliation run %s of %s %s %s',
                           held.id, run_id, run_channel, run_date,
                           CASE WHEN held.parks_back THEN 'finds its break again'
                                ELSE 'no longer finds its break' END), held.id)
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
    cases_opened := CASE WHEN lag_over THEN recon_open_cases(run_channel, run_date)
                                            + recon_park_back_settled(run_channel, run_date, run_id)
                         ELSE 0 END;
    -- Audited last, as every writer takes the audit chain's head after its
    -- other rows, so that none waits for a row while holding the head.
    FOR closing IN SELECT value FROM jsonb_array_elements(closed) LOOP
        PERFORM audit('case.close_by_run', 'suspense_case', closing ->> 'case',
                      jsonb_build_object('run', run_id) || (closing - 'case'));
    END LOOP;
END
$$;

-- A person's settling of a case that parked money back supersedes the
-- decision its break was resolved by: a run that finds the break again, with
-- the amounts of that decision, would otherwise keep it resolved and park
-- nothing, though the money the decision took out is back in clearing. The
-- break's decision is cleared and the break raised (after the case closed,
-- so that the case does not stop the next one, migration 0026).
CREATE FUNCTION suspense_cases_parked_back_settled() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    IF NEW.resolution ->> 'kind' IS DISTINCT FROM 'recon_run' THEN
        UPDATE recon_breaks
        SET resolution = NULL, raised_at = clock_timestamp()
        WHERE id = NEW.recon_break_id AND status = 'resolved'
          AND (resolution ->> 'case') IS DISTINCT FROM NEW.id::text;
    END IF;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION suspense_cases_parked_back_settled() FROM PUBLIC;
CREATE TRIGGER suspense_cases_parked_back_settled AFTER UPDATE OF status ON suspense_cases
    FOR EACH ROW
    WHEN (NEW.parks_back AND OLD.status IN ('open', 'in_review')
          AND NEW.status NOT IN ('open', 'in_review'))
    EXECUTE FUNCTION suspense_cases_parked_back_settled();
