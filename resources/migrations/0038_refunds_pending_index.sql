-- keel schema v38: the oldest refund still pending, found without a scan.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- The gateway's housekeeping reports how long the oldest payment has been in
-- doubt (keel_payments_in_doubt_oldest_seconds), refunds pending included,
-- once a minute. Pending refunds are few among many settled ones.

CREATE INDEX refunds_pending ON refunds (created_at) WHERE status = 'pending';
