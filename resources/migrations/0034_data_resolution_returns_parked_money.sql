-- keel schema v34: the cases of a break the channel's data resolved are
-- closed by the run, and money they parked on no charge goes back.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- A case parks money on a charge (a payment keel made, which the channel
-- reports for more) or on nothing (a payment keel never made, a refund the
-- channel made for less or not at all). The first kind is counted on keel's
-- side of its charge from then on: that is what makes the charge reconcile
-- and its break resolve, and the money stays parked for a person. The second
-- kind is counted by no run. When a later run no longer finds such a break,
-- the data changed under it: the line is now judged as a record's of keel's
-- (the channel's id for it became known, or a late line made it another
-- day's), or its statement was withdrawn. What the case parked is then
-- either judged with that record, where any difference is parked again on
-- its own, or was never the channel's. Left in suspense it would be parked
-- twice, or parked for nothing, and the clearing account would no longer
-- say what the channel moved. A case of 0 only chased a difference, which
-- the data no longer shows.
--
-- So every run of a day closes the open cases of that day's resolved
-- breaks that hold money on no charge, or nothing: the money goes back to
-- the clearing account it came from, and each closing is on the audit chain
-- with the run that did it (audited after the run's other writes, as every
-- writer takes the chain's head last). Cases closed by a person's resolution are closed
-- already; a case someone is acting on at that moment (its row locked) is
-- left to the next run rather than waited for, so a run never deadlocks with
-- a person's action. A service that leaves a break out of its result to
-- have its money returned must put that result, whose SHA-256 is on the
-- audit chain, where `keel recon verify` recomputes it from the statements.
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
                   CASE a.kind WHEN 'suspense' THEN held.amount ELSE -held.amount END
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
                                               'returned', held.amount,
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
REVOKE EXECUTE ON FUNCTION recon_record_run(text, date, text, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION recon_record_run(text, date, text, integer) TO keel_gateway;
