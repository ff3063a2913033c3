-- Asynchronous results the channels POST to keel (Alipay's notify_url,
-- WeChat Pay's notify, Stripe's webhooks), each kept once: a channel that
-- repeats a notification (it does, until it is answered) finds it here and
-- changes nothing; a reused WeChat Pay nonce is a replay and is refused.
CREATE TABLE channel_notifications (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel     text NOT NULL CHECK (channel IN ('alipay', 'wechatpay', 'stripe')),
    notice_id   text NOT NULL,  -- notify_id, the event's id, or the Stripe event id
    nonce       text,           -- Wechatpay-Nonce
    reference   text NOT NULL,  -- keel's charge (ch_...) the channel reported on
    outcome     text NOT NULL CHECK (outcome IN ('approved', 'failed')),
    amount      bigint,         -- minor units, as the channel reported it
    currency    char(3),
    verdict     text NOT NULL
                CHECK (verdict IN ('applied', 'unchanged', 'conflicting', 'unknown_charge',
                                   'amount_mismatch')),
    received_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (channel, notice_id)
);
CREATE UNIQUE INDEX channel_notifications_nonce ON channel_notifications (channel, nonce)
    WHERE nonce IS NOT NULL;
CREATE INDEX channel_notifications_reference ON channel_notifications (reference);

GRANT SELECT, INSERT ON channel_notifications TO keel_gateway;
GRANT SELECT ON channel_notifications TO keel_auditor, keel_operator, keel_approver, keel_sre;
GRANT USAGE ON SEQUENCE channel_notifications_id_seq TO keel_gateway;
