-- Which charge or refund an Idempotency-Key produced, so a payment's timeline
-- can show the request that created it (while the key is retained).
ALTER TABLE idempotency_keys ADD COLUMN resource_id text;
CREATE INDEX idempotency_keys_resource ON idempotency_keys (resource_id) WHERE resource_id IS NOT NULL;
