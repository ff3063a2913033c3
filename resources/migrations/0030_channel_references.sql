-- keel schema v30: keel keeps the channel's own reference for each charge and
-- refund it approved.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- A statement names a payment by the reference keel sent (out_trade_no,
-- Stripe's metadata) and by the channel's own id (trade_no, ch_...). Some
-- lines carry only the channel's id: a Stripe charge made without keel's
-- metadata, a channel that truncates the merchant's order number. The
-- reconciliation run matches those on the id the channel answered keel with.
-- The service login may already update these tables; the new columns need no
-- grant of their own. Not unique: one id the channel gave twice must not stop
-- a payment's outcome from being recorded, and a run treats it as naming
-- neither record.
ALTER TABLE charges ADD COLUMN channel_reference text
    CHECK (channel_reference <> '' AND length(channel_reference) <= 128);
ALTER TABLE refunds ADD COLUMN channel_reference text
    CHECK (channel_reference <> '' AND length(channel_reference) <= 128);
CREATE INDEX charges_by_channel_reference ON charges (channel, channel_reference)
    WHERE channel_reference IS NOT NULL;
CREATE INDEX refunds_by_channel_reference ON refunds (channel, channel_reference)
    WHERE channel_reference IS NOT NULL;
