-- "Payments by state" without counting the payments: totals kept by folding
-- payment_events (every state change writes one, in the same transaction), and
-- a per-minute copy of the totals for the Overview's chart. Folding happens in
-- the processes' housekeeping, not on the payment path, so charges pay nothing
-- for it; the totals trail the truth by a few seconds.
CREATE TABLE payment_state_totals (
    state    text PRIMARY KEY,
    payments bigint NOT NULL
);

-- How far the fold has come. Events are folded only once every transaction
-- that could still commit an event with a smaller id has ended: a horizon
-- (the highest visible id, and the snapshot it was read under) is noted on
-- one pass and folded on a later one, once every transaction that was running
-- under that snapshot has ended (later ones draw larger ids: identity ids are
-- handed out in order, no cache). Only those transactions are waited for, so
-- a long writer that started afterwards does not hold the totals back.
CREATE TABLE payment_state_fold (
    only_row         boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    folded_through   bigint NOT NULL,
    pending_through  bigint,
    pending_snapshot pg_snapshot,
    pending_since    timestamptz
);

-- The totals as they stood at the last fold of each minute; swept after eight days.
CREATE TABLE payment_state_minute (
    minute   timestamptz NOT NULL CHECK (minute = date_trunc('minute', minute)),
    state    text NOT NULL,
    payments bigint NOT NULL,
    PRIMARY KEY (minute, state)
);

-- Start from an exact count. The lock waits for transactions writing states
-- and holds new ones back until this migration commits, so nothing is counted
-- twice or missed.
LOCK TABLE payment_state, payment_events IN SHARE MODE;
INSERT INTO payment_state_totals (state, payments)
SELECT state, count(*) FROM payment_state GROUP BY state;
INSERT INTO payment_state_fold (folded_through)
SELECT coalesce(max(id), 0) FROM payment_events;

-- One pass: folds at most `batch` event ids, notes a new horizon when caught
-- up, and records the minute's totals. Returns the ids folded. Concurrent
-- callers do not queue: all but one return 0 at once.
CREATE FUNCTION fold_payment_states(batch integer) RETURNS bigint
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
DECLARE
    fold payment_state_fold%ROWTYPE;
    upto bigint;
BEGIN
    SELECT * INTO fold FROM payment_state_fold FOR UPDATE SKIP LOCKED;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;
    upto := fold.folded_through;
    IF fold.pending_through IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM pg_snapshot_xip(fold.pending_snapshot) AS x
                       WHERE pg_xact_status(x) = 'in progress')
       AND fold.pending_since <= now() - interval '1 second' THEN
        upto := least(fold.pending_through, fold.folded_through + batch);
        INSERT INTO payment_state_totals AS t (state, payments)
        SELECT m.state, sum(m.delta)
        FROM payment_events e
        CROSS JOIN LATERAL (VALUES (e.to_state, 1), (e.from_state, -1)) AS m(state, delta)
        WHERE e.id > fold.folded_through AND e.id <= upto AND m.state <> 'Created'
        GROUP BY m.state
        ON CONFLICT (state) DO UPDATE SET payments = t.payments + EXCLUDED.payments;
        UPDATE payment_state_fold
        SET folded_through = upto,
            pending_through = CASE WHEN upto = fold.pending_through THEN NULL ELSE pending_through END;
        IF upto = fold.pending_through THEN
            fold.pending_through := NULL;
        END IF;
    END IF;
    IF fold.pending_through IS NULL THEN
        UPDATE payment_state_fold
        SET pending_through = (SELECT coalesce(max(id), 0) FROM payment_events),
            pending_snapshot = pg_current_snapshot(),
            pending_since = now();
    END IF;
    INSERT INTO payment_state_minute AS m (minute, state, payments)
    SELECT date_trunc('minute', now()), state, payments FROM payment_state_totals
    ON CONFLICT (minute, state) DO UPDATE SET payments = EXCLUDED.payments;
    DELETE FROM payment_state_minute WHERE minute < now() - interval '8 days';
    RETURN upto - fold.folded_through;
END
$$;

GRANT SELECT, INSERT, UPDATE ON payment_state_totals, payment_state_fold TO keel_gateway;
GRANT SELECT, INSERT, UPDATE, DELETE ON payment_state_minute TO keel_gateway;
REVOKE EXECUTE ON FUNCTION fold_payment_states(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION fold_payment_states(integer) TO keel_gateway;
GRANT SELECT ON payment_state_totals, payment_state_minute
    TO keel_auditor, keel_operator, keel_approver, keel_sre;
GRANT SELECT ON payment_state_fold TO keel_auditor;
