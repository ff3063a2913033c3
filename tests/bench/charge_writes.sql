-- pgbench reference for keel-bench: the writes keel makes for one new,
-- captured charge, by hand, in the same two transactions.
-- Variables from -D: merchant, clearing, payable. Runs with -M prepared, so
-- variables never stand inside string literals.
\set amount 1000
\set k random(1, 9223372036854775806)
BEGIN;
INSERT INTO keel.idempotency_keys (key_hash, merchant_id, endpoint, request_hash,
    expected_duration_ms, locked_at, locked_by, expires_at)
  VALUES (sha256(convert_to(:k::text, 'UTF8')), :merchant, 'POST /v1/charges',
    sha256('fingerprint'), 2000, now(), 'pgbench', now() + interval '1 day');
WITH c AS (INSERT INTO keel.charges (public_id, merchant_id, out_trade_no, amount, currency,
      source, metadata, capture, request_hash)
    VALUES ('ch_' || replace(gen_random_uuid()::text, '-', ''), :merchant, 'pgb:' || :k::text,
      :amount, 'USD', 'tok_visa', '{}', true, sha256('terms'))
    RETURNING id),
  s AS (INSERT INTO keel.payment_state (charge_id, state, version)
    SELECT id, 'Authorizing', 1 FROM c RETURNING charge_id),
  e AS (INSERT INTO keel.payment_events (charge_id, from_state, to_state, event_type)
    SELECT charge_id, 'Created', 'Authorizing', 'submit' FROM s)
SELECT id AS charge FROM c \gset
COMMIT;
BEGIN;
UPDATE keel.payment_state SET state = 'Captured', version = version + 1, updated_at = now()
  WHERE charge_id = :charge AND state = 'Authorizing' AND version = 1;
INSERT INTO keel.payment_events (charge_id, from_state, to_state, event_type, upstream_event_id)
  VALUES (:charge, 'Authorizing', 'Authorized', 'auth_ok', NULL),
         (:charge, 'Authorized', 'Capturing', 'capture', NULL),
         (:charge, 'Capturing', 'Captured', 'capture_ok', 'pgbench:' || :charge::text);
UPDATE keel.charges SET amount_captured = amount_captured + :amount WHERE id = :charge;
WITH t AS (INSERT INTO keel.ledger_transactions (kind, charge_id) VALUES ('capture', :charge) RETURNING id)
INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount)
  SELECT t.id, :clearing::bigint, 'USD', :amount::bigint FROM t
  UNION ALL SELECT t.id, :payable::bigint, 'USD', -:amount::bigint FROM t;
INSERT INTO keel.outbox (aggregate_type, aggregate_id, event_type, payload)
  VALUES ('charge', :charge, 'charge.succeeded', '{"amount": 1000}');
UPDATE keel.idempotency_keys SET status = 'done', response_status = 200, response_headers = '[]',
    response_body = 'stored response', completed_at = now(), locked_at = NULL, locked_by = NULL
  WHERE key_hash = sha256(convert_to(:k::text, 'UTF8'));
COMMIT;
