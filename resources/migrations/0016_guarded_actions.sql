-- Guarded operator actions (maker-checker). The rules live here, so the
-- console only reflects them:
--  * what may be proposed, and by whom: action_kinds; a kind that moves money
--    is for keel_operator only, the rest also for keel_sre;
--  * a proposal freezes its targets (ids and the row versions the proposer
--    saw) and their hash, and expires after ops_policy.proposal_ttl;
--  * a second person with keel_approver approves or rejects it (the
--    approvals_not_self trigger of migration 0001 refuses the proposer);
--  * keel.execute_action() runs an approved, unexpired action at most once,
--    touching only targets still at their frozen version, and reports each;
--    kinds whose work is keel_core's (a saga's manual actions move money
--    through the ledger) are queued for a keel worker, which can take only
--    what this function queued and reports back through finish_action();
--  * every proposal, decision, expiry and execution lands in audit_log.
-- Runs as keel_owner with search_path keel.

CREATE TABLE ops_policy (
    singleton    boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    proposal_ttl interval NOT NULL DEFAULT interval '24 hours'
                 CHECK (proposal_ttl > interval '0')
);
INSERT INTO ops_policy DEFAULT VALUES;

CREATE TABLE action_kinds (
    kind        text PRIMARY KEY,
    target_type text NOT NULL,
    moves_money boolean NOT NULL,
    -- 'database': execute_action() does the work; 'worker': a keel worker does.
    executor    text NOT NULL DEFAULT 'database' CHECK (executor IN ('database', 'worker'))
);
INSERT INTO action_kinds (kind, target_type, moves_money, executor) VALUES
    ('outbox.resend', 'outbox', false, 'database'),
    ('notification.resend', 'notification', false, 'database'),
    ('saga.retry_now', 'saga', false, 'worker'),
    ('saga.force_compensation', 'saga', true, 'worker'),
    ('saga.park', 'saga', true, 'worker'),
    ('saga.resume', 'saga', true, 'worker'),
    ('saga.skip_step', 'saga', true, 'worker');

ALTER TABLE operator_actions DROP CONSTRAINT operator_actions_status_check;
ALTER TABLE operator_actions
    ADD CONSTRAINT operator_actions_status_check
        CHECK (status IN ('proposed', 'approved', 'rejected', 'queued', 'executed', 'failed',
                          'expired')),
    ADD COLUMN idempotency_key text UNIQUE
               CHECK (idempotency_key ~ '^[A-Za-z0-9_.:-]{8,64}$'),
    ADD COLUMN targets jsonb NOT NULL DEFAULT '[]',
    ADD COLUMN targets_hash text,
    ADD COLUMN expires_at timestamptz,
    ADD COLUMN executed_by text,
    ADD COLUMN outcome jsonb,
    ADD COLUMN queued_at timestamptz,
    ADD COLUMN claimed_until timestamptz;
CREATE INDEX operator_actions_queued ON operator_actions (queued_at) WHERE status = 'queued';

-- A resent outbox message is a new row that names the one it repeats; the
-- original stays parked, marked resent, so a repeat failure shows as such.
ALTER TABLE outbox
    ADD COLUMN resend_of    bigint,
    ADD COLUMN resend_count integer NOT NULL DEFAULT 0,
    ADD COLUMN resent_at    timestamptz;

ALTER TABLE notifications ADD COLUMN resent_at timestamptz;

-- SREs no longer edit outbox rows and saga timers directly: a resend or
-- retry is a guarded action like any other.
REVOKE UPDATE (next_attempt_at, attempts, parked_at) ON outbox FROM keel_sre;
REVOKE UPDATE (next_attempt_at) ON sagas, saga_steps FROM keel_sre;
GRANT SELECT ON operator_actions, approvals, action_kinds, ops_policy
    TO keel_sre, keel_operator, keel_approver, keel_auditor;
GRANT SELECT ON outbox TO keel_operator, keel_approver;
GRANT INSERT ON operator_actions TO keel_sre;
-- A saga's view names its charge; SREs see which one, not its amounts.
GRANT SELECT (id, public_id) ON charges TO keel_sre;
GRANT USAGE ON SEQUENCE operator_actions_id_seq TO keel_sre;

CREATE FUNCTION audit(action text, object_type text, object_id text, detail jsonb)
RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    INSERT INTO audit_log (action, object_type, object_id, detail)
    VALUES (action, object_type, object_id, detail);
$$;
REVOKE EXECUTE ON FUNCTION audit(text, text, text, jsonb) FROM PUBLIC;

-- A proposal as it may be stored: a known kind its proposer may propose, a
-- non-empty target list of {"id", "version"}, and nothing already decided.
CREATE FUNCTION operator_actions_admit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    spec action_kinds;
    bad  jsonb;
BEGIN
    SELECT * INTO spec FROM action_kinds WHERE kind = NEW.kind;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'unknown action kind %', NEW.kind
            USING ERRCODE = 'KL422', COLUMN = 'kind';
    END IF;
    IF NEW.target_type <> spec.target_type THEN
        RAISE EXCEPTION 'action % targets %, not %', NEW.kind, spec.target_type, NEW.target_type
            USING ERRCODE = 'KL422', COLUMN = 'target_type';
    END IF;
    IF NOT (pg_has_role(session_user, 'keel_operator', 'USAGE')
            OR (NOT spec.moves_money AND pg_has_role(session_user, 'keel_sre', 'USAGE'))) THEN
        RAISE EXCEPTION '% may not propose %: it moves money, which only keel_operator proposes',
            session_user, NEW.kind
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF jsonb_typeof(NEW.targets) <> 'array' OR jsonb_array_length(NEW.targets) = 0
       OR jsonb_array_length(NEW.targets) > 10000 THEN
        RAISE EXCEPTION 'targets must list 1 to 10000 {"id", "version"} objects'
            USING ERRCODE = 'KL422', COLUMN = 'targets';
    END IF;
    SELECT t INTO bad FROM jsonb_array_elements(NEW.targets) t
    WHERE jsonb_typeof(t -> 'id') IS DISTINCT FROM 'string'
       OR jsonb_typeof(t -> 'version') IS DISTINCT FROM 'string'
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'target % is not {"id": "...", "version": "..."}', bad
            USING ERRCODE = 'KL422', COLUMN = 'targets';
    END IF;
    IF (SELECT count(DISTINCT t ->> 'id') FROM jsonb_array_elements(NEW.targets) t)
       <> jsonb_array_length(NEW.targets) THEN
        RAISE EXCEPTION 'targets name the same id twice'
            USING ERRCODE = 'KL422', COLUMN = 'targets';
    END IF;
    NEW.status := 'proposed';
    NEW.targets_hash := encode(sha256(convert_to(NEW.targets::text, 'UTF8')), 'hex');
    NEW.expires_at := now() + (SELECT proposal_ttl FROM ops_policy);
    NEW.executed_at := NULL;
    NEW.executed_by := NULL;
    NEW.outcome := NULL;
    NEW.after := NULL;
    RETURN NEW;
END
$$;
CREATE TRIGGER operator_actions_admit BEFORE INSERT ON operator_actions
    FOR EACH ROW EXECUTE FUNCTION operator_actions_admit();

CREATE FUNCTION operator_actions_audit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    PERFORM audit('propose', 'operator_action', NEW.id::text,
                  jsonb_build_object('kind', NEW.kind, 'target_type', NEW.target_type,
                                     'target_id', NEW.target_id,
                                     'targets', jsonb_array_length(NEW.targets),
                                     'targets_hash', NEW.targets_hash, 'reason', NEW.reason,
                                     'payload', NEW.payload, 'before', NEW.before,
                                     'expires_at', NEW.expires_at));
    RETURN NULL;
END
$$;
CREATE TRIGGER operator_actions_audit AFTER INSERT ON operator_actions
    FOR EACH ROW EXECUTE FUNCTION operator_actions_audit();

-- Marks every proposal past its time expired, each with its audit entry.
CREATE FUNCTION expire_actions() RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    expired record;
    n integer := 0;
BEGIN
    FOR expired IN
        UPDATE operator_actions SET status = 'expired'
        WHERE status IN ('proposed', 'approved') AND expires_at <= now()
        RETURNING id, kind, expires_at
    LOOP
        PERFORM audit('expire', 'operator_action', expired.id::text,
                      jsonb_build_object('kind', expired.kind, 'expires_at', expired.expires_at));
        n := n + 1;
    END LOOP;
    RETURN n;
END
$$;
REVOKE EXECUTE ON FUNCTION expire_actions() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION expire_actions()
    TO keel_gateway, keel_operator, keel_approver, keel_sre;

-- A decision needs a proposal still open. Runs after approvals_not_self
-- (trigger names sort), so the proposer is refused before anything else.
CREATE FUNCTION approvals_decide() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    proposal operator_actions;
BEGIN
    SELECT * INTO proposal FROM operator_actions WHERE id = NEW.action_id FOR UPDATE;
    IF proposal.status = 'proposed' AND proposal.expires_at <= now() THEN
        RAISE EXCEPTION 'proposal % expired at %', proposal.id, proposal.expires_at
            USING ERRCODE = 'KL410';
    END IF;
    IF proposal.status <> 'proposed' THEN
        RAISE EXCEPTION 'proposal % is already %', proposal.id, proposal.status
            USING ERRCODE = 'KL409';
    END IF;
    UPDATE operator_actions
    SET status = CASE NEW.decision WHEN 'approve' THEN 'approved' ELSE 'rejected' END
    WHERE id = NEW.action_id;
    RETURN NEW;
END
$$;
CREATE TRIGGER approvals_take_decision BEFORE INSERT ON approvals
    FOR EACH ROW EXECUTE FUNCTION approvals_decide();

CREATE FUNCTION approvals_audit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    PERFORM audit(NEW.decision, 'operator_action', NEW.action_id::text,
                  jsonb_build_object('comment', NEW.comment));
    RETURN NULL;
END
$$;
CREATE TRIGGER approvals_audit AFTER INSERT ON approvals
    FOR EACH ROW EXECUTE FUNCTION approvals_audit();

-- outbox.resend: each parked, not yet resent message still at the version
-- the proposer saw becomes a new pending row naming it.
CREATE FUNCTION execute_outbox_resend(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    target  jsonb;
    message outbox;
    version text;
    resent  bigint;
    results jsonb := '[]';
BEGIN
    FOR target IN SELECT * FROM jsonb_array_elements(proposal.targets) LOOP
        message := NULL;
        IF target ->> 'id' ~ '^[0-9]{1,18}$' THEN
            -- The row version is its xmin: any write since the proposal changes it.
            SELECT o.xmin::text INTO version FROM outbox o
            WHERE o.id = (target ->> 'id')::bigint FOR UPDATE;
            SELECT * INTO message FROM outbox WHERE id = (target ->> 'id')::bigint;
        END IF;
        IF message.id IS NULL THEN
            results := results || jsonb_build_object('id', target ->> 'id', 'outcome', 'missing');
        ELSIF version <> target ->> 'version'
              OR message.parked_at IS NULL OR message.resent_at IS NOT NULL THEN
            results := results || jsonb_build_object('id', target ->> 'id', 'outcome', 'changed');
        ELSE
            INSERT INTO outbox (aggregate_type, aggregate_id, event_type, payload, headers,
                                resend_of, resend_count)
            VALUES (message.aggregate_type, message.aggregate_id, message.event_type,
                    message.payload, message.headers, message.id, message.resend_count + 1)
            RETURNING id INTO resent;
            UPDATE outbox SET resent_at = now() WHERE id = message.id;
            results := results || jsonb_build_object('id', target ->> 'id', 'outcome', 'resent',
                                                     'new_id', resent::text);
        END IF;
    END LOOP;
    RETURN results;
END
$$;
REVOKE EXECUTE ON FUNCTION execute_outbox_resend(operator_actions) FROM PUBLIC;

-- notification.resend: each parked, not yet resent notification still at
-- the version the proposer saw becomes a new pending delivery of the same
-- event (same event id, as Stripe's resends), naming the one it repeats.
CREATE FUNCTION execute_notification_resend(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    target  jsonb;
    sent    notifications;
    version text;
    resent  bigint;
    results jsonb := '[]';
BEGIN
    FOR target IN SELECT * FROM jsonb_array_elements(proposal.targets) LOOP
        sent := NULL;
        IF target ->> 'id' ~ '^[0-9]{1,18}$' THEN
            SELECT n.xmin::text INTO version FROM notifications n
            WHERE n.id = (target ->> 'id')::bigint FOR UPDATE;
            SELECT * INTO sent FROM notifications WHERE id = (target ->> 'id')::bigint;
        END IF;
        IF sent.id IS NULL THEN
            results := results || jsonb_build_object('id', target ->> 'id', 'outcome', 'missing');
        ELSIF version <> target ->> 'version' OR sent.status <> 'parked'
              OR sent.resent_at IS NOT NULL THEN
            results := results || jsonb_build_object('id', target ->> 'id', 'outcome', 'changed');
        ELSE
            INSERT INTO notifications (merchant_id, outbox_id, event_id, event_type, object_id,
                                       charge_id, body, resend_of, resend_count)
            VALUES (sent.merchant_id, sent.outbox_id, sent.event_id, sent.event_type,
                    sent.object_id, sent.charge_id, sent.body, sent.id, sent.resend_count + 1)
            RETURNING id INTO resent;
            UPDATE notifications SET resent_at = now() WHERE id = sent.id;
            results := results || jsonb_build_object('id', target ->> 'id', 'outcome', 'resent',
                                                     'new_id', resent::text);
        END IF;
    END LOOP;
    RETURN results;
END
$$;
REVOKE EXECUTE ON FUNCTION execute_notification_resend(operator_actions) FROM PUBLIC;

-- The work of each kind execute_action() does itself; a migration that adds
-- such a kind replaces this function.
CREATE FUNCTION run_database_action(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    CASE proposal.kind
        WHEN 'outbox.resend' THEN RETURN execute_outbox_resend(proposal);
        WHEN 'notification.resend' THEN RETURN execute_notification_resend(proposal);
    END CASE;
END
$$;
REVOKE EXECUTE ON FUNCTION run_database_action(operator_actions) FROM PUBLIC;

-- Records an executed action's per-target results: its summary, status,
-- and the audit entry.
CREATE FUNCTION finish(proposal operator_actions, results jsonb) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    summary jsonb;
BEGIN
    summary := jsonb_build_object(
        'status', 'executed', 'targets', results,
        'applied', (SELECT count(*) FROM jsonb_array_elements(results) r
                    WHERE r ->> 'outcome' IN ('resent', 'done')),
        'skipped', (SELECT count(*) FROM jsonb_array_elements(results) r
                    WHERE r ->> 'outcome' NOT IN ('resent', 'done')));
    UPDATE operator_actions
    SET status = 'executed', executed_at = now(),
        executed_by = coalesce(executed_by, session_user), outcome = summary, after = results
    WHERE id = proposal.id;
    PERFORM audit('execute', 'operator_action', proposal.id::text,
                  jsonb_build_object('kind', proposal.kind, 'targets_hash', proposal.targets_hash)
                      || (summary - 'status'));
    RETURN summary;
END
$$;
REVOKE EXECUTE ON FUNCTION finish(operator_actions, jsonb) FROM PUBLIC;

-- The worker's side of queued actions. It takes only what execute_action()
-- queued (approved, unexpired, by a person allowed to execute it), one at a
-- time, for a minute: a worker that dies leaves it to another, and since each
-- target is fenced by its frozen version, a second run cannot apply it twice.
CREATE FUNCTION claim_queued_action() RETURNS SETOF operator_actions
LANGUAGE sql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    UPDATE operator_actions SET claimed_until = now() + interval '1 minute'
    WHERE id = (SELECT id FROM operator_actions
                WHERE status = 'queued' AND coalesce(claimed_until, '-infinity') < now()
                ORDER BY queued_at LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING *;
$$;
CREATE FUNCTION finish_queued_action(action_id bigint, results jsonb) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    proposal operator_actions;
BEGIN
    SELECT * INTO proposal FROM operator_actions WHERE id = action_id FOR UPDATE;
    IF NOT FOUND OR proposal.status <> 'queued' THEN
        RAISE EXCEPTION 'action % is not queued', action_id USING ERRCODE = 'KL409';
    END IF;
    RETURN finish(proposal, results);
END
$$;
REVOKE EXECUTE ON FUNCTION claim_queued_action() FROM PUBLIC;
REVOKE EXECUTE ON FUNCTION finish_queued_action(bigint, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION claim_queued_action() TO keel_gateway;
GRANT EXECUTE ON FUNCTION finish_queued_action(bigint, jsonb) TO keel_gateway;

-- Runs an approved action once. Its proposer or any keel_approver may call
-- it; a second call returns the first call's outcome; an expired proposal is
-- marked expired and does nothing.
CREATE FUNCTION execute_action(action_id bigint) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    proposal operator_actions;
    results  jsonb;
BEGIN
    SELECT * INTO proposal FROM operator_actions WHERE id = action_id FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no operator action %', action_id USING ERRCODE = 'KL404';
    END IF;
    IF session_user <> proposal.proposed_by
       AND NOT pg_has_role(session_user, 'keel_approver', 'USAGE') THEN
        RAISE EXCEPTION '% may not execute action %: only its proposer or an approver may',
            session_user, action_id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF proposal.status = 'executed' THEN
        RETURN proposal.outcome || jsonb_build_object('replayed', true);
    END IF;
    IF proposal.status = 'queued' THEN
        RETURN jsonb_build_object('status', 'queued', 'replayed', true);
    END IF;
    IF proposal.status IN ('proposed', 'approved') AND proposal.expires_at <= now() THEN
        UPDATE operator_actions SET status = 'expired' WHERE id = action_id;
        PERFORM audit('expire', 'operator_action', action_id::text,
                      jsonb_build_object('kind', proposal.kind,
                                         'expires_at', proposal.expires_at));
        RETURN jsonb_build_object('status', 'expired', 'expires_at', proposal.expires_at);
    END IF;
    IF proposal.status <> 'approved' THEN
        RAISE EXCEPTION 'action % is %, not approved', action_id, proposal.status
            USING ERRCODE = 'KL409';
    END IF;
    IF (SELECT executor FROM action_kinds WHERE kind = proposal.kind) = 'worker' THEN
        UPDATE operator_actions SET status = 'queued', queued_at = now(), executed_by = session_user
        WHERE id = action_id;
        PERFORM audit('queue', 'operator_action', action_id::text,
                      jsonb_build_object('kind', proposal.kind,
                                         'targets_hash', proposal.targets_hash));
        PERFORM pg_notify('keel_actions', action_id::text);
        RETURN jsonb_build_object('status', 'queued');
    END IF;
    results := run_database_action(proposal);
    RETURN finish(proposal, results);
END
$$;
REVOKE EXECUTE ON FUNCTION execute_action(bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION execute_action(bigint) TO keel_operator, keel_approver, keel_sre;

CREATE INDEX outbox_parked_open ON outbox (id) WHERE parked_at IS NOT NULL AND resent_at IS NULL;
CREATE INDEX notifications_parked_open ON notifications (id)
    WHERE status = 'parked' AND resent_at IS NULL;
