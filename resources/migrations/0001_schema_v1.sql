-- keel schema v1: the tables of DESIGN.md §3.
-- Runs as keel_owner with search_path keel (set by the migrator).
-- Retention: tables marked "grows with traffic" are swept in small batches by
-- keel (idempotency_keys by expires_at, outbox/inbox by age once published,
-- saga_events with their saga); none is ever cleared with one big DELETE.

-- ISO 4217 currencies keel accepts, with their minor-unit exponent.
CREATE TABLE currencies (
    code       char(3) PRIMARY KEY CHECK (code ~ '^[A-Z]{3}$'),
    exponent   smallint NOT NULL CHECK (exponent BETWEEN 0 AND 4),
    max_amount bigint NOT NULL CHECK (max_amount > 0)
);
INSERT INTO currencies (code, exponent, max_amount) VALUES
    ('CNY', 2, 100000000000), ('USD', 2, 100000000000), ('EUR', 2, 100000000000),
    ('GBP', 2, 100000000000), ('HKD', 2, 100000000000), ('SGD', 2, 100000000000),
    ('AUD', 2, 100000000000), ('CAD', 2, 100000000000), ('CHF', 2, 100000000000),
    ('INR', 2, 100000000000), ('JPY', 0, 10000000000),  ('KRW', 0, 100000000000),
    ('BHD', 3, 10000000000),  ('KWD', 3, 10000000000),  ('OMR', 3, 10000000000),
    ('JOD', 3, 10000000000),  ('TND', 3, 10000000000);

CREATE TABLE merchants (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name              text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    api_key_hash      bytea NOT NULL UNIQUE CHECK (length(api_key_hash) = 32),
    notify_url        text CHECK (notify_url ~ '^https?://'),
    max_charge_amount bigint CHECK (max_charge_amount > 0),
    status            text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
    created_at        timestamptz NOT NULL DEFAULT now()
);

-- Kept apart from merchants so that read-only roles, which may read every other
-- table, never see signing secrets.
CREATE TABLE merchant_secrets (
    merchant_id    bigint PRIMARY KEY REFERENCES merchants (id),
    webhook_secret text NOT NULL CHECK (webhook_secret ~ '^whsec_'),
    rotated_at     timestamptz NOT NULL DEFAULT now()
);

-- Grows with traffic; swept by expires_at.
CREATE TABLE idempotency_keys (
    key_hash             bytea PRIMARY KEY CHECK (length(key_hash) = 32), -- SHA-256(merchant, key)
    merchant_id          bigint NOT NULL REFERENCES merchants (id),
    endpoint             text NOT NULL,
    request_hash         bytea NOT NULL CHECK (length(request_hash) = 32),
    status               text NOT NULL DEFAULT 'processing'
                         CHECK (status IN ('processing', 'done', 'failed')),
    response_status      smallint CHECK (response_status BETWEEN 100 AND 599),
    response_headers     jsonb,
    response_body        bytea, -- bytes as sent, so a replay is byte for byte
    expected_duration_ms integer NOT NULL DEFAULT 1000 CHECK (expected_duration_ms > 0),
    locked_at            timestamptz,
    locked_by            text,
    recovered_count      integer NOT NULL DEFAULT 0,
    created_at           timestamptz NOT NULL DEFAULT now(),
    completed_at         timestamptz,
    expires_at           timestamptz NOT NULL,
    CHECK ((status = 'processing') = (response_status IS NULL))
);
CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at);
CREATE INDEX idempotency_keys_stale_locks ON idempotency_keys (locked_at)
    WHERE status = 'processing';

-- Grows with traffic; kept (financial record).
CREATE TABLE charges (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id       text NOT NULL UNIQUE CHECK (public_id ~ '^ch_[A-Za-z0-9]{8,40}$'),
    merchant_id     bigint NOT NULL REFERENCES merchants (id),
    out_trade_no    varchar(64) NOT NULL CHECK (length(out_trade_no) > 0),
    amount          bigint NOT NULL CHECK (amount > 0),
    currency        char(3) NOT NULL REFERENCES currencies (code),
    source          text NOT NULL,
    description     text,
    metadata        jsonb NOT NULL DEFAULT '{}',
    capture         boolean NOT NULL DEFAULT true,
    amount_captured bigint NOT NULL DEFAULT 0 CHECK (amount_captured >= 0),
    amount_refunded bigint NOT NULL DEFAULT 0 CHECK (amount_refunded >= 0),
    request_hash    bytea NOT NULL, -- the order's terms, to tell a retry from a conflict
    created_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (merchant_id, out_trade_no),
    CHECK (amount_captured <= amount),
    CHECK (amount_refunded <= amount_captured)
);
CREATE INDEX charges_created ON charges (created_at, id);
CREATE INDEX charges_merchant_created ON charges (merchant_id, created_at, id);

CREATE TABLE payment_state (
    charge_id     bigint PRIMARY KEY REFERENCES charges (id),
    state         text NOT NULL CHECK (state IN ('Created', 'Authorizing', 'Authorized', 'Failed',
                                                 'Capturing', 'Captured', 'Refunding', 'Refunded',
                                                 'Reversed', 'Canceled')),
    version       integer NOT NULL DEFAULT 0 CHECK (version >= 0),
    last_event_id bigint,
    updated_at    timestamptz NOT NULL DEFAULT now()
);
-- "payments by state" and "stuck in Authorizing/Capturing since" read this.
CREATE INDEX payment_state_state_updated ON payment_state (state, updated_at);

-- Grows with traffic; kept.
CREATE TABLE payment_events (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    charge_id         bigint NOT NULL REFERENCES charges (id),
    from_state        text NOT NULL,
    to_state          text NOT NULL,
    event_type        varchar(32) NOT NULL,
    upstream_event_id text, -- the channel's event id; a duplicate is dropped by the constraint
    payload           jsonb NOT NULL DEFAULT '{}',
    created_at        timestamptz NOT NULL DEFAULT now(),
    UNIQUE (charge_id, upstream_event_id)
);
CREATE INDEX payment_events_charge ON payment_events (charge_id, id);
CREATE INDEX payment_events_created ON payment_events (created_at);

CREATE TABLE refunds (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    public_id     text NOT NULL UNIQUE CHECK (public_id ~ '^re_[A-Za-z0-9]{8,40}$'),
    charge_id     bigint NOT NULL REFERENCES charges (id),
    out_refund_no varchar(64) NOT NULL CHECK (length(out_refund_no) > 0),
    amount        bigint NOT NULL CHECK (amount > 0),
    currency      char(3) NOT NULL REFERENCES currencies (code),
    status        text NOT NULL DEFAULT 'pending'
                  CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
    reason        text,
    metadata      jsonb NOT NULL DEFAULT '{}',
    request_hash  bytea NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (charge_id, out_refund_no)
);
CREATE INDEX refunds_created ON refunds (created_at, id);

-- Double-entry ledger. Amounts are signed minor units: debit > 0, credit < 0.
CREATE TABLE ledger_accounts (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    code        text NOT NULL UNIQUE,
    kind        text NOT NULL CHECK (kind IN ('asset', 'liability', 'revenue', 'expense',
                                              'equity', 'suspense')),
    currency    char(3) NOT NULL REFERENCES currencies (code),
    merchant_id bigint REFERENCES merchants (id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (id, currency)
);
-- One suspense account (差错户) per currency.
CREATE UNIQUE INDEX ledger_accounts_one_suspense ON ledger_accounts (currency)
    WHERE kind = 'suspense';
INSERT INTO ledger_accounts (code, kind, currency)
    SELECT 'suspense:' || code, 'suspense', code FROM currencies;
INSERT INTO ledger_accounts (code, kind, currency)
    SELECT 'channel_clearing:' || code, 'asset', code FROM currencies;

CREATE TABLE ledger_transactions (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind        text NOT NULL, -- capture, refund, suspense_in, adjustment, ...
    charge_id   bigint REFERENCES charges (id),
    refund_id   bigint REFERENCES refunds (id),
    description text,
    created_by  text NOT NULL DEFAULT session_user,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX ledger_transactions_charge ON ledger_transactions (charge_id) WHERE charge_id IS NOT NULL;

-- Grows with traffic; kept. Immutable once written.
CREATE TABLE ledger_entries (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    transaction_id bigint NOT NULL REFERENCES ledger_transactions (id),
    account_id     bigint NOT NULL,
    currency       char(3) NOT NULL,
    amount         bigint NOT NULL CHECK (amount <> 0),
    created_at     timestamptz NOT NULL DEFAULT now(),
    FOREIGN KEY (account_id, currency) REFERENCES ledger_accounts (id, currency)
);
CREATE INDEX ledger_entries_transaction ON ledger_entries (transaction_id);
CREATE INDEX ledger_entries_account ON ledger_entries (account_id, id);

-- Every ledger transaction must balance to zero in each currency when its
-- database transaction commits: enforced here, not left to the callers.
CREATE FUNCTION ledger_check_balanced() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    imbalance bigint;
    bad_currency char(3);
BEGIN
    SELECT sum(amount), currency INTO imbalance, bad_currency
      FROM ledger_entries
     WHERE transaction_id = NEW.transaction_id
     GROUP BY currency
    HAVING sum(amount) <> 0
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'ledger transaction % does not balance: % % left over',
            NEW.transaction_id, imbalance, bad_currency
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER ledger_entries_balanced
    AFTER INSERT ON ledger_entries
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_check_balanced();

CREATE FUNCTION reject_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER ledger_entries_immutable BEFORE UPDATE OR DELETE ON ledger_entries
    FOR EACH ROW EXECUTE FUNCTION reject_change();

-- Sagas: persisted orchestration, leased by workers.
CREATE TABLE sagas (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind             text NOT NULL,
    charge_id        bigint REFERENCES charges (id),
    status           text NOT NULL DEFAULT 'running'
                     CHECK (status IN ('running', 'compensating', 'succeeded', 'compensated',
                                       'parked')),
    current_step     integer NOT NULL DEFAULT 0,
    payload          jsonb NOT NULL DEFAULT '{}',
    lease_owner      text,
    lease_expires_at timestamptz,
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
-- Workers claim due sagas; the console counts stuck ones (non-terminal, old).
CREATE INDEX sagas_due ON sagas (next_attempt_at)
    WHERE status IN ('running', 'compensating');
CREATE INDEX sagas_active_updated ON sagas (updated_at)
    WHERE status IN ('running', 'compensating', 'parked');
CREATE INDEX sagas_charge ON sagas (charge_id) WHERE charge_id IS NOT NULL;

CREATE TABLE saga_steps (
    saga_id               bigint NOT NULL REFERENCES sagas (id),
    step_index            integer NOT NULL CHECK (step_index >= 0),
    name                  text NOT NULL,
    status                text NOT NULL DEFAULT 'pending'
                          CHECK (status IN ('pending', 'running', 'succeeded', 'failed',
                                            'compensating', 'compensated',
                                            'compensation_failed', 'skipped')),
    attempts              integer NOT NULL DEFAULT 0,
    compensation_attempts integer NOT NULL DEFAULT 0,
    last_error            text,
    next_attempt_at       timestamptz,
    started_at            timestamptz,
    finished_at           timestamptz,
    PRIMARY KEY (saga_id, step_index)
);

-- Grows with traffic; swept with its saga.
CREATE TABLE saga_events (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    saga_id    bigint NOT NULL REFERENCES sagas (id),
    step_index integer,
    event      text NOT NULL,
    detail     jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX saga_events_saga ON saga_events (saga_id, id);

-- TCC barrier (idempotency, empty rollback, anti-hanging).
CREATE TABLE tcc_barrier (
    gid        text NOT NULL,
    branch_id  text NOT NULL,
    op         text NOT NULL CHECK (op IN ('try', 'confirm', 'cancel')),
    reason     text NOT NULL DEFAULT 'normal' CHECK (reason IN ('normal', 'empty_rollback')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (gid, branch_id, op)
);

-- Transactional outbox. txid is the writing transaction's id: the relay reads
-- only rows below the oldest transaction still running, so a row whose
-- transaction commits late is never skipped by a cursor. Grows with traffic;
-- published rows are swept by age.
CREATE TABLE outbox (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    txid            xid8 NOT NULL DEFAULT pg_current_xact_id(),
    aggregate_type  varchar(32) NOT NULL,
    aggregate_id    varchar(64) NOT NULL,
    event_type      varchar(64) NOT NULL,
    payload         jsonb NOT NULL,
    headers         jsonb NOT NULL DEFAULT '{}',
    created_at      timestamptz NOT NULL DEFAULT now(),
    published_at    timestamptz,
    attempts        integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_error      text,
    parked_at       timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (id)
    WHERE published_at IS NULL AND parked_at IS NULL;
CREATE INDEX outbox_parked ON outbox (parked_at) WHERE parked_at IS NOT NULL;
CREATE INDEX outbox_aggregate ON outbox (aggregate_type, aggregate_id);

-- Consumer-side dedupe. Grows with traffic; swept by age.
CREATE TABLE inbox (
    consumer    text NOT NULL,
    message_id  text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, message_id)
);

-- Opened when automatic compensation failed three times.
CREATE TABLE suspense_cases (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    saga_id     bigint REFERENCES sagas (id),
    charge_id   bigint REFERENCES charges (id),
    currency    char(3) NOT NULL REFERENCES currencies (code),
    amount      bigint NOT NULL CHECK (amount > 0),
    status      text NOT NULL DEFAULT 'open'
                CHECK (status IN ('open', 'in_review', 'resolved', 'written_off')),
    owner       text,
    reason      text NOT NULL,
    resolution  jsonb,
    opened_at   timestamptz NOT NULL DEFAULT now(),
    resolved_at timestamptz,
    CHECK ((status IN ('resolved', 'written_off')) = (resolved_at IS NOT NULL))
);
CREATE INDEX suspense_cases_open ON suspense_cases (status, opened_at)
    WHERE status IN ('open', 'in_review');

-- Guarded operator actions and maker-checker approvals. Who acted is always the
-- database session's user, never a value the client chose.
CREATE TABLE operator_actions (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind        text NOT NULL,
    target_type text NOT NULL,
    target_id   text NOT NULL,
    payload     jsonb NOT NULL DEFAULT '{}',
    reason      text NOT NULL CHECK (length(btrim(reason)) >= 5),
    status      text NOT NULL DEFAULT 'proposed'
                CHECK (status IN ('proposed', 'approved', 'rejected', 'executed', 'failed',
                                  'expired')),
    proposed_by text NOT NULL DEFAULT session_user,
    proposed_at timestamptz NOT NULL DEFAULT now(),
    executed_at timestamptz,
    before      jsonb,
    after       jsonb
);
CREATE INDEX operator_actions_status ON operator_actions (status, proposed_at);

CREATE TABLE approvals (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    action_id  bigint NOT NULL REFERENCES operator_actions (id),
    decision   text NOT NULL CHECK (decision IN ('approve', 'reject')),
    decided_by text NOT NULL DEFAULT session_user,
    decided_at timestamptz NOT NULL DEFAULT now(),
    comment    text,
    UNIQUE (action_id, decided_by)
);

CREATE FUNCTION stamp_actor() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'operator_actions' THEN
        NEW.proposed_by := session_user;
        NEW.proposed_at := now();
    ELSE
        NEW.decided_by := session_user;
        NEW.decided_at := now();
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER operator_actions_actor BEFORE INSERT ON operator_actions
    FOR EACH ROW EXECUTE FUNCTION stamp_actor();
CREATE TRIGGER approvals_actor BEFORE INSERT ON approvals
    FOR EACH ROW EXECUTE FUNCTION stamp_actor();

-- SECURITY DEFINER so the check can read the proposal whatever the approver's grants.
CREATE FUNCTION approvals_reject_self() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    maker text;
BEGIN
    SELECT proposed_by INTO maker FROM operator_actions WHERE id = NEW.action_id;
    IF maker = NEW.decided_by THEN
        RAISE EXCEPTION 'maker-checker: % cannot approve or reject their own proposal %',
            NEW.decided_by, NEW.action_id
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER approvals_not_self BEFORE INSERT ON approvals
    FOR EACH ROW EXECUTE FUNCTION approvals_reject_self();

-- Append-only audit log; each row's hash covers the previous row's hash, so an
-- edited or deleted row breaks the chain from there on.
CREATE TABLE audit_log (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    seq         bigint NOT NULL UNIQUE, -- chain order, assigned under the chain lock
    at          timestamptz NOT NULL DEFAULT now(),
    actor       text NOT NULL DEFAULT session_user,
    action      text NOT NULL,
    object_type text NOT NULL,
    object_id   text NOT NULL,
    detail      jsonb NOT NULL DEFAULT '{}',
    prev_hash   bytea,
    hash        bytea NOT NULL
);

CREATE FUNCTION audit_log_chain() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    last_seq bigint;
BEGIN
    -- Serialises writers so that two rows never claim the same predecessor;
    -- identity values may commit out of order, so the chain has its own seq.
    PERFORM pg_advisory_xact_lock(6874013101274015591);
    NEW.actor := session_user;
    NEW.at := clock_timestamp();
    SELECT seq, hash INTO last_seq, NEW.prev_hash FROM audit_log ORDER BY seq DESC LIMIT 1;
    NEW.seq := coalesce(last_seq, 0) + 1;
    NEW.hash := sha256(coalesce(NEW.prev_hash, '\x'::bytea) ||
                       convert_to(concat_ws(E'\x1f', NEW.seq::text,
                                            to_char(NEW.at AT TIME ZONE 'UTC',
                                                    'YYYY-MM-DD"T"HH24:MI:SS.US'),
                                            NEW.actor, NEW.action, NEW.object_type,
                                            NEW.object_id, NEW.detail::text), 'UTF8'));
    RETURN NEW;
END
$$;
CREATE TRIGGER audit_log_chain BEFORE INSERT ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_chain();
CREATE TRIGGER audit_log_immutable BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION reject_change();
