-- pgbench reference for keel-bench: what keel writes for one new, captured
-- charge, by hand, in the same commits and round trips as keel makes them, in
-- the best form pgbench allows:
--   1. the Idempotency-Key reservation and the charge's first rows: one statement;
--   2. the channel's record of the authorization (the simulated network keeps
--      its memory in the same server): one statement;
--   3. the outcome (transition + events, amount, ledger posting, outbox event,
--      stored response): one pipelined transaction, one round trip.
-- keel-bench fills in @...@ with the rows keel itself stored during warm-up,
-- hex-encoded (so no ':' reaches pgbench's variable parser), so both store
-- rows of the same size. Variables from -D: merchant, clearing, payable.
\set k random(1, 9223372036854775806)
WITH reserved AS (INSERT INTO keel.idempotency_keys AS k (key_hash, merchant_id, endpoint,
      request_hash, expected_duration_ms, locked_at, locked_by, expires_at, resource_id)
    VALUES (sha256(convert_to(:k::text, 'UTF8')), :merchant::bigint, 'POST /v1/charges',
      sha256(convert_to('fp' || :k::text, 'UTF8')), 2000, now(), '@LOCKED_BY@',
      now() + interval '1 day', 'ch_' || substr(md5(:k::text), 1, 24))
    ON CONFLICT (key_hash) DO UPDATE SET status = 'processing' WHERE k.expires_at < now()
    RETURNING 1 AS ok),
  c AS (INSERT INTO keel.charges (public_id, merchant_id, out_trade_no, amount, currency,
      source, description, metadata, capture, request_hash)
    SELECT 'ch_' || substr(md5(:k::text), 1, 24), :merchant::bigint,
      'idem:' || substr(encode(sha256(convert_to(:k::text, 'UTF8')), 'hex'), 1, 40), 1000, 'USD',
      'tok_visa', NULL, '{}'::jsonb, true, sha256(convert_to('terms' || :k::text, 'UTF8'))
    FROM reserved ON CONFLICT (merchant_id, out_trade_no) DO NOTHING
    RETURNING id, public_id),
  s AS (INSERT INTO keel.payment_state (charge_id, state, version)
    SELECT id, 'Authorizing', 1 FROM c RETURNING charge_id),
  e AS (INSERT INTO keel.payment_events (charge_id, from_state, to_state, event_type)
    SELECT charge_id, 'Created', 'Authorizing', 'submit' FROM s)
SELECT id AS charge, public_id AS public FROM c \gset
WITH inserted AS (INSERT INTO keel.sim_channel_operations
    (reference, operation, outcome, amount, decline_code)
    VALUES (:public::text, 'authorize', 'approved', 1000, NULL)
    ON CONFLICT (reference, operation) DO NOTHING RETURNING outcome, decline_code)
SELECT outcome, decline_code FROM inserted UNION ALL
SELECT outcome, decline_code FROM keel.sim_channel_operations
WHERE reference = :public::text AND operation = 'authorize' LIMIT 1;
\startpipeline
BEGIN;
WITH moved AS (UPDATE keel.payment_state SET state = 'Captured', version = version + 1,
      updated_at = now()
    WHERE charge_id = :charge::bigint AND state = 'Authorizing' AND version = 1 RETURNING charge_id),
  ev AS (INSERT INTO keel.payment_events (charge_id, from_state, to_state, event_type,
      upstream_event_id, payload)
    SELECT m.charge_id, s.from_state, s.to_state, s.event_type,
      CASE WHEN s.n = 3 THEN concat_ws(':', 'simulated', 'authorize', :public::text) END, '{}'::jsonb
    FROM moved m CROSS JOIN (VALUES ('Authorizing', 'Authorized', 'auth_ok', 1),
      ('Authorized', 'Capturing', 'capture', 2), ('Capturing', 'Captured', 'capture_ok', 3))
      AS s(from_state, to_state, event_type, n) ORDER BY s.n RETURNING 1)
SELECT keel.require_rows((SELECT count(*) FROM moved), 1, 'moved'), (SELECT count(*) FROM ev);
UPDATE keel.charges SET amount_captured = amount_captured + 1000 WHERE id = :charge::bigint;
WITH t AS (INSERT INTO keel.ledger_transactions (kind, charge_id, refund_id)
    VALUES ('capture', :charge::bigint, NULL) RETURNING id)
INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount)
SELECT t.id, :clearing::bigint, 'USD'::char(3), 1000::bigint FROM t UNION ALL
SELECT t.id, :payable::bigint, 'USD'::char(3), -1000::bigint FROM t;
INSERT INTO keel.outbox (aggregate_type, aggregate_id, event_type, payload)
  VALUES ('charge', :public::text, 'charge.succeeded',
    convert_from(decode('@OUTBOX_PAYLOAD_HEX@', 'hex'), 'UTF8')::jsonb);
WITH done AS (UPDATE keel.idempotency_keys SET status = 'done', response_status = 200,
      response_headers = convert_from(decode('@RESPONSE_HEADERS_HEX@', 'hex'), 'UTF8')::jsonb,
      response_body = decode('@RESPONSE_BODY_HEX@', 'hex'), completed_at = now(),
      resource_id = coalesce(:public::text, resource_id), locked_at = NULL, locked_by = NULL
    WHERE key_hash = sha256(convert_to(:k::text, 'UTF8')) AND status = 'processing'
      AND locked_by = '@LOCKED_BY@' RETURNING 1)
SELECT keel.require_rows(count(*), 1, 'held') FROM done;
COMMIT;
\endpipeline
