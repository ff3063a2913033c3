-- pgbench reference for keel-saga-bench: what keel writes to run one 2-step
-- saga, by hand, in the same six commits, each in the best form pgbench
-- allows (one round trip per commit; keel needs more, it also reads):
--   1. the Idempotency-Key, the saga, its steps, its first event and the
--      stored reply, with the wake-up notification;
--   2. a worker's claim (its lease);
--   3./5. each step's attempt recorded before the participant is called;
--   4./6. each step's outcome recorded after; the last also ends the saga,
--      logs it and writes its outbox event.
-- keel-saga-bench fills in @...@ with the rows keel itself stored during
-- warm-up, hex-encoded (so no ':' reaches pgbench's variable parser), so both
-- store rows of the same size. Variable from -D: merchant.
\set k random(1, 9223372036854775806)
\startpipeline
BEGIN;
INSERT INTO keel.idempotency_keys (key_hash, merchant_id, endpoint, request_hash,
    expected_duration_ms, locked_at, locked_by, expires_at)
  VALUES (sha256(convert_to(:k::text, 'UTF8')), :merchant::bigint, 'POST /v1/sagas',
    sha256(convert_to('fp' || :k::text, 'UTF8')), 100, now(), '@LOCKED_BY@',
    now() + interval '1 day');
WITH s AS (INSERT INTO keel.sagas (kind, public_id, merchant_id, definition_version,
      business_key, stuck_after_seconds, max_compensation_rounds, trans_type)
    VALUES ('bench', 'saga_' || substr(md5(:k::text), 1, 24), :merchant::bigint, 1, NULL, 300,
      3, 'saga') RETURNING id),
  steps AS (INSERT INTO keel.saga_steps (saga_id, step_index, name, kind, definition)
    SELECT s.id, t.i, t.name, 'http', t.definition::jsonb FROM s,
      (VALUES (0, 'reserve', convert_from(decode('@DEFINITION0_HEX@', 'hex'), 'UTF8')),
              (1, 'confirm', convert_from(decode('@DEFINITION1_HEX@', 'hex'), 'UTF8')))
        AS t(i, name, definition)),
  e AS (INSERT INTO keel.saga_events (saga_id, event, detail)
    SELECT s.id, 'started', jsonb_build_object('steps', 2) FROM s)
SELECT id, pg_notify('keel_saga_due', 'forward') FROM s;
UPDATE keel.idempotency_keys SET status = 'done', response_status = 200,
    response_headers = convert_from(decode('@RESPONSE_HEADERS_HEX@', 'hex'), 'UTF8')::jsonb,
    response_body = decode('@RESPONSE_BODY_HEX@', 'hex'), completed_at = now(),
    resource_id = 'saga_' || substr(md5(:k::text), 1, 24), locked_at = NULL, locked_by = NULL
  WHERE key_hash = sha256(convert_to(:k::text, 'UTF8')) AND status = 'processing';
COMMIT;
\endpipeline
UPDATE keel.sagas SET lease_owner = '@LOCKED_BY@/f0',
    lease_expires_at = now() + interval '30 seconds',
    next_attempt_at = now() + interval '30 seconds'
  WHERE public_id = 'saga_' || substr(md5(:k::text), 1, 24);
\set step 0
\startpipeline
BEGIN;
WITH s AS (UPDATE keel.sagas SET current_step = :step::int, lease_expires_at = now() + interval '35 s',
      next_attempt_at = now() + interval '35 s', version = version + 1, updated_at = now()
    WHERE public_id = 'saga_' || substr(md5(:k::text), 1, 24) RETURNING id),
  st AS (UPDATE keel.saga_steps SET attempts = attempts + 1, status = 'running',
      started_at = coalesce(started_at, now())
    WHERE saga_id = (SELECT id FROM s) AND step_index = :step::int RETURNING saga_id)
INSERT INTO keel.saga_events (saga_id, step_index, event, detail)
  SELECT saga_id, :step::int, 'attempt_started',
    jsonb_build_object('op', 'action', 'attempt', 1, 'worker', '@LOCKED_BY@/f0') FROM st;
COMMIT;
\endpipeline
\startpipeline
BEGIN;
WITH s AS (UPDATE keel.sagas SET current_step = :step::int + 1, next_attempt_at = lease_expires_at,
      version = version + 1, updated_at = now()
    WHERE public_id = 'saga_' || substr(md5(:k::text), 1, 24) RETURNING id),
  st AS (UPDATE keel.saga_steps SET status = 'succeeded', result = '{}', last_error = NULL,
      last_response = '{"dtm_result":"SUCCESS"}', finished_at = now()
    WHERE saga_id = (SELECT id FROM s) AND step_index = :step::int RETURNING saga_id)
INSERT INTO keel.saga_events (saga_id, step_index, event, detail)
  SELECT saga_id, :step::int, 'attempt_ended', jsonb_build_object('op', 'action', 'attempt', 1,
    'verdict', 'succeeded', 'ms', 1, 'status', 200, 'response', '{"dtm_result":"SUCCESS"}')
  FROM st;
COMMIT;
\endpipeline
\set step 1
\startpipeline
BEGIN;
WITH s AS (UPDATE keel.sagas SET current_step = :step::int, lease_expires_at = now() + interval '35 s',
      next_attempt_at = now() + interval '35 s', version = version + 1, updated_at = now()
    WHERE public_id = 'saga_' || substr(md5(:k::text), 1, 24) RETURNING id),
  st AS (UPDATE keel.saga_steps SET attempts = attempts + 1, status = 'running',
      started_at = coalesce(started_at, now())
    WHERE saga_id = (SELECT id FROM s) AND step_index = :step::int RETURNING saga_id)
INSERT INTO keel.saga_events (saga_id, step_index, event, detail)
  SELECT saga_id, :step::int, 'attempt_started',
    jsonb_build_object('op', 'action', 'attempt', 1, 'worker', '@LOCKED_BY@/f0') FROM st;
COMMIT;
\endpipeline
\startpipeline
BEGIN;
WITH s AS (UPDATE keel.sagas SET status = 'succeeded', current_step = :step::int + 1,
      lease_owner = NULL, lease_expires_at = NULL, next_attempt_at = now(), finished_at = now(),
      version = version + 1, updated_at = now()
    WHERE public_id = 'saga_' || substr(md5(:k::text), 1, 24) RETURNING id),
  st AS (UPDATE keel.saga_steps SET status = 'succeeded', result = '{}', last_error = NULL,
      last_response = '{"dtm_result":"SUCCESS"}', finished_at = now()
    WHERE saga_id = (SELECT id FROM s) AND step_index = :step::int RETURNING saga_id)
INSERT INTO keel.saga_events (saga_id, step_index, event, detail)
  SELECT saga_id, :step::int, 'attempt_ended', jsonb_build_object('op', 'action', 'attempt', 1,
    'verdict', 'succeeded', 'ms', 1, 'status', 200, 'response', '{"dtm_result":"SUCCESS"}')
  FROM st UNION ALL
  SELECT saga_id, NULL::int, 'succeeded', '{}'::jsonb FROM st;
INSERT INTO keel.outbox (aggregate_type, aggregate_id, event_type, payload)
  VALUES ('saga', 'saga_' || substr(md5(:k::text), 1, 24), 'saga.succeeded',
    jsonb_build_object('saga', 'saga_' || substr(md5(:k::text), 1, 24), 'name', 'bench',
      'status', 'succeeded'));
COMMIT;
\endpipeline
