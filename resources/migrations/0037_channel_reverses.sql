-- keel schema v37: the reverses keel sent to a channel, known to every process.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- WeChat Pay's reverse (撤销) of an order gives back a payment the order
-- holds. One that went unanswered may still be carried out, so until its fate
-- is known no "paid" reading of the order may be believed, by any process:
-- the gateway that sent it, a worker, or the same gateway after a restart.
-- Each copy sent is a row, written before it is sent. A copy is settled when
-- the channel answered it for certain (a refusal or "no such order" of a
-- request sent once), or when the order reads closed, which no copy can undo.
-- An order is unsettled while any of its copies is.

CREATE TABLE channel_reverses (
    copy bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel text NOT NULL CHECK (channel <> ''),
    order_no text NOT NULL CHECK (order_no <> ''),
    sent_at timestamptz NOT NULL DEFAULT now(),
    settled_at timestamptz,
    -- Settled because the order read closed: a copy landed (or the order
    -- closed by itself), so a "paid" read before that is never believed.
    order_closed boolean NOT NULL DEFAULT false
);

CREATE INDEX channel_reverses_order ON channel_reverses (channel, order_no);

-- A copy is recorded unsettled, at the time it is, and settled once, at the
-- time it is; nothing else about it changes. The service can neither unsettle
-- one (a paid order's protection) nor date one otherwise.
CREATE FUNCTION channel_reverses_settle_once() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.settled_at IS NOT NULL OR NEW.order_closed THEN
            RAISE EXCEPTION 'a reverse copy is recorded unsettled' USING ERRCODE = 'check_violation';
        END IF;
        NEW.sent_at := now();
        RETURN NEW;
    END IF;
    IF OLD.settled_at IS NOT NULL OR NEW.settled_at IS NULL
       OR NEW.channel IS DISTINCT FROM OLD.channel OR NEW.order_no IS DISTINCT FROM OLD.order_no
       OR NEW.sent_at IS DISTINCT FROM OLD.sent_at THEN
        RAISE EXCEPTION 'reverse copy %: a copy is settled once, and nothing else about it changes',
            OLD.copy USING ERRCODE = 'check_violation';
    END IF;
    NEW.settled_at := now();
    RETURN NEW;
END
$$;

CREATE TRIGGER channel_reverses_settle_once BEFORE INSERT OR UPDATE ON channel_reverses
    FOR EACH ROW EXECUTE FUNCTION channel_reverses_settle_once();

GRANT SELECT, INSERT ON channel_reverses TO keel_gateway;
GRANT UPDATE (settled_at, order_closed) ON channel_reverses TO keel_gateway;
GRANT SELECT ON channel_reverses TO keel_auditor, keel_sre, keel_operator, keel_approver;
