-- Merchant notifications (异步通知): each charge and refund event for a
-- merchant with a notify_url, written in the event's own transaction beside
-- its outbox row, then POSTed by the workers, signed like Stripe's webhooks,
-- until the merchant answers 2xx or the retries (about three days) run out.
CREATE TABLE notifications (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    merchant_id     bigint NOT NULL REFERENCES merchants (id),
    outbox_id       bigint NOT NULL,  -- the event's outbox row (swept later; no FK)
    event_id        text NOT NULL CHECK (event_id ~ '^evt_'),
    event_type      varchar(64) NOT NULL,
    object_id       varchar(64) NOT NULL, -- ch_... or re_...
    charge_id       varchar(64) NOT NULL, -- the charge it belongs to, for its timeline
    body            text NOT NULL,        -- the exact bytes signed and sent
    status          text NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'delivered', 'parked')),
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_error      text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    delivered_at    timestamptz,
    parked_at       timestamptz,
    -- A manual resend is a new notification of the same event; lineage makes
    -- a repeated failure visible.
    resend_of       bigint REFERENCES notifications (id),
    resend_count    integer NOT NULL DEFAULT 0,
    CHECK ((status = 'delivered') = (delivered_at IS NOT NULL)),
    CHECK ((status = 'parked') = (parked_at IS NOT NULL))
);
-- One original delivery per event; resends repeat its event id, as Stripe's do.
CREATE UNIQUE INDEX notifications_event ON notifications (event_id) WHERE resend_of IS NULL;
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status = 'pending';
CREATE INDEX notifications_charge ON notifications (charge_id);
CREATE INDEX notifications_parked ON notifications (parked_at) WHERE status = 'parked';

CREATE TABLE notification_attempts (
    notification_id  bigint NOT NULL REFERENCES notifications (id),
    attempt          integer NOT NULL CHECK (attempt > 0),
    started_at       timestamptz NOT NULL,
    latency_ms       integer NOT NULL CHECK (latency_ms >= 0),
    http_status      integer,          -- null: no answer (refused, timed out)
    error            text,
    response_excerpt text,             -- the first 200 characters of the answer
    PRIMARY KEY (notification_id, attempt)
);

-- Senders wake on this instead of waiting for their poll.
CREATE FUNCTION notifications_notify() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
BEGIN
    PERFORM pg_notify('keel_notifications', '');
    RETURN NULL;
END
$$;
CREATE TRIGGER notifications_notify AFTER INSERT ON notifications
    FOR EACH STATEMENT EXECUTE FUNCTION notifications_notify();

-- A rotated webhook secret stays valid for a while, so merchants can deploy
-- the new one: notifications carry a v1 signature for each live secret.
ALTER TABLE merchant_secrets
    ADD COLUMN previous_secret text CHECK (previous_secret ~ '^whsec_'),
    ADD COLUMN previous_expires_at timestamptz,
    ADD CHECK ((previous_secret IS NULL) = (previous_expires_at IS NULL));

GRANT SELECT, INSERT, UPDATE ON notifications TO keel_gateway;
GRANT SELECT, INSERT ON notification_attempts TO keel_gateway;
GRANT SELECT ON notifications, notification_attempts
    TO keel_auditor, keel_operator, keel_approver, keel_sre;
GRANT USAGE ON SEQUENCE notifications_id_seq TO keel_gateway;
