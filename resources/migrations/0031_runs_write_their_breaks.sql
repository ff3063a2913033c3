-- keel schema v31: a reconciliation run's breaks are written by the database
-- from the run's own result, never row by row by the service.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- Until now the service login inserted its run and then upserted each break
-- and resolved the ones its run no longer found, with UPDATE rights on the
-- breaks' status. So it could also mark any break resolved, or pending, with
-- no run behind it: a difference hidden from the gauges, the headline and
-- the case that its lag would open. Now the service hands over the run's
-- canonical result (what `keel recon verify` recomputes and whose SHA-256 goes
-- on the audit chain) and this function writes the run and every break state
-- from it. Whether a break is pending is decided here from the channel's lag.
-- A service that lies must now lie in a result that is hashed, audited and
-- recomputable from the statements and the books.
--
-- The cases a run opens once its day's lag has passed are opened here too,
-- and only here: the service may no longer call recon_open_cases() on a day
-- whose lag has not passed.
--
-- A run also keeps how many of the channel's lines fell on its day, so that
-- the console lists runs without counting a million lines per row. The
-- console shows a day's latest run; earlier runs keep no count.
ALTER TABLE recon_runs ADD COLUMN day_lines integer CHECK (day_lines >= 0);
WITH latest AS (SELECT DISTINCT ON (channel, business_date) id, channel, business_date
                FROM recon_runs ORDER BY channel, business_date, id DESC)
UPDATE recon_runs r SET day_lines = (
    SELECT count(*) FROM recon_lines l JOIN recon_channels c ON c.channel = l.channel
    WHERE l.channel = latest.channel
      AND l.occurred_at >= latest.business_date::timestamp AT TIME ZONE c.time_zone
      AND l.occurred_at < (latest.business_date + 1)::timestamp AT TIME ZONE c.time_zone)
FROM latest WHERE r.id = latest.id;

-- A run's audit row is written when it commits, after its breaks: a run then
-- takes a break's row before the audit chain's head, as a person's resolution
-- of that break does, and the two cannot deadlock on them.
DROP TRIGGER recon_runs_audit ON recon_runs;
CREATE CONSTRAINT TRIGGER recon_runs_audit AFTER INSERT ON recon_runs
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION recon_runs_audit();

CREATE FUNCTION recon_record_run(run_channel text, run_date date, result text,
                                 day_lines integer, OUT run_id bigint, OUT cases_opened integer)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    document json;
    lag_over boolean;
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
    -- A break seen before keeps its id and goes on persisting; one keel's side
    -- may still settle stays pending until the lag has passed.
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
    cases_opened := CASE WHEN lag_over THEN recon_open_cases(run_channel, run_date) ELSE 0 END;
END
$$;
REVOKE EXECUTE ON FUNCTION recon_record_run(text, date, text, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION recon_record_run(text, date, text, integer) TO keel_gateway;
REVOKE EXECUTE ON FUNCTION recon_open_cases(text, date) FROM keel_gateway;

REVOKE INSERT ON recon_runs FROM keel_gateway;
REVOKE INSERT (channel, business_date, class, kind, reference, currency, channel_amount,
               keel_amount, status, first_run_id, last_run_id),
       UPDATE (currency, channel_amount, keel_amount, status, last_run_id, resolved_at)
    ON recon_breaks FROM keel_gateway;
REVOKE USAGE ON SEQUENCE recon_runs_id_seq, recon_breaks_id_seq FROM keel_gateway;
