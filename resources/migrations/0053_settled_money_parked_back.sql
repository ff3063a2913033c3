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
-- sign break_difference_to_park gives it (held above 0, owed below).
CREATE FUNCTION break_no_charge_parked(broken recon_breaks) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT coalesce(sum(case_left_in_clearing(k)), 0)::bigint
    FROM suspense_cases k
    WHERE k.recon_break_id = broken.id AND k.charge_id IS NULL
$$;
REVOKE EXECUTE ON FUNCTION break_no_charge_parked(recon_breaks) FROM PUBLIC;

-- What charge_owed counts of a refund break: the money its cases keep out of
-- clearing as owed, net of what they hold.
CREATE OR REPLACE FUNCTION refund_break_owed(of_break bigint) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT greatest(0, -break_no_charge_parked(b)) FROM recon_breaks b WHERE b.id = of_break
$$;

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
-- in clearing is parked the other way. A payment line still in the
-- statements, which a run judges as a charge's by the channel's id, is left
-- to that charge's run, which counts the money on keel's side
-- (SettledUnderChannelIds). A break a person is acting on (locked) waits for
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
                    AND (b.kind = 'refund'
                         OR NOT EXISTS (SELECT 1 FROM recon_lines l
                                        WHERE l.reference = b.reference
                                          AND l.channel = b.channel AND l.kind = b.kind))
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
                       OR (k.parks_back AND b.last_run_id = run_id)
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

