-- The Overview's long ranges read ten-minute sums instead of minutes. A week
-- of per-minute rows from three processes is millions of rows (every endpoint,
-- status class and latency bucket); a week of ten-minute sums over all
-- processes is a thirtieth of that. Housekeeping folds minutes into slots once
-- a slot has ended (and its minutes are no longer being topped up); the
-- Overview reads slots up to the fold's horizon and minutes after it.
CREATE TABLE metrics_ten_minutes (
    metric    text NOT NULL,
    le_micros bigint NOT NULL DEFAULT 0,
    slot      timestamptz NOT NULL
        CHECK (slot = date_bin('10 minutes', slot, timestamptz '2000-01-01 00:00+00')),
    count     bigint NOT NULL DEFAULT 0 CHECK (count >= 0),
    total     bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (metric, le_micros, slot)
);
CREATE INDEX metrics_ten_minutes_by_slot ON metrics_ten_minutes (slot);

-- How far the minutes have been folded; NULL until the first fold.
CREATE TABLE metrics_ten_minutes_fold (
    only_row       boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    folded_through timestamptz
);
INSERT INTO metrics_ten_minutes_fold VALUES (true, NULL);

-- Folds every slot that ended at least two minutes ago and drops slots older
-- than eight days (the minutes' own retention). Recomputes whole slots, so a
-- repeated fold changes nothing; concurrent callers skip instead of queueing.
-- Returns the horizon, or NULL if another caller holds the fold.
CREATE FUNCTION fold_metric_slots() RETURNS timestamptz
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
DECLARE
    done   timestamptz;
    target timestamptz := date_bin('10 minutes', now() - interval '2 minutes',
                                   timestamptz '2000-01-01 00:00+00');
    oldest timestamptz := date_bin('10 minutes', now() - interval '8 days',
                                   timestamptz '2000-01-01 00:00+00');
BEGIN
    SELECT folded_through INTO done FROM metrics_ten_minutes_fold FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    done := greatest(coalesce(done, oldest), oldest);
    IF target > done THEN
        INSERT INTO metrics_ten_minutes AS s (metric, le_micros, slot, count, total)
        SELECT metric, le_micros,
               date_bin('10 minutes', minute, timestamptz '2000-01-01 00:00+00'),
               sum(count), sum(total)
        FROM metrics_minute WHERE minute >= done AND minute < target
        GROUP BY 1, 2, 3
        ON CONFLICT (metric, le_micros, slot)
        DO UPDATE SET count = EXCLUDED.count, total = EXCLUDED.total;
        UPDATE metrics_ten_minutes_fold SET folded_through = target;
        DELETE FROM metrics_ten_minutes WHERE slot < oldest;
        RETURN target;
    END IF;
    RETURN done;
END
$$;

GRANT SELECT, INSERT, UPDATE, DELETE ON metrics_ten_minutes TO keel_gateway;
GRANT SELECT, UPDATE ON metrics_ten_minutes_fold TO keel_gateway;
GRANT SELECT ON metrics_ten_minutes, metrics_ten_minutes_fold
    TO keel_auditor, keel_operator, keel_approver, keel_sre;
REVOKE EXECUTE ON FUNCTION fold_metric_slots() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION fold_metric_slots() TO keel_gateway;
