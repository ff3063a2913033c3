-- The saga engine's state. A saga carries its definition inline (each step's
-- kind, URLs, payload and retry policies in saga_steps.definition), so a
-- worker resumes from the tables alone, and a definition changed later never
-- changes a saga already running.
ALTER TABLE sagas
    ADD COLUMN public_id text UNIQUE CHECK (public_id ~ '^saga_[A-Za-z0-9]{8,40}$'),
    ADD COLUMN merchant_id bigint REFERENCES merchants (id),
    ADD COLUMN definition_version integer NOT NULL DEFAULT 1 CHECK (definition_version > 0),
    ADD COLUMN business_key varchar(128),
    -- Bumped by every change, so an operator's action applies only to the
    -- saga they saw.
    ADD COLUMN version integer NOT NULL DEFAULT 0 CHECK (version >= 0),
    ADD COLUMN compensation_rounds integer NOT NULL DEFAULT 0 CHECK (compensation_rounds >= 0),
    ADD COLUMN max_compensation_rounds integer NOT NULL DEFAULT 3
        CHECK (max_compensation_rounds > 0),
    ADD COLUMN stuck_after_seconds integer NOT NULL DEFAULT 300 CHECK (stuck_after_seconds > 0),
    ADD COLUMN last_error text,
    ADD COLUMN finished_at timestamptz;

-- Forward and compensation work are claimed by separate pools: one partial
-- index each, so a storm of one kind never makes the other scan past it.
CREATE INDEX sagas_due_forward ON sagas (next_attempt_at) WHERE status = 'running';
CREATE INDEX sagas_due_compensating ON sagas (next_attempt_at) WHERE status = 'compensating';
CREATE INDEX sagas_merchant ON sagas (merchant_id, id);
CREATE INDEX sagas_status ON sagas (status, id);
CREATE INDEX sagas_business_key ON sagas (merchant_id, business_key) WHERE business_key IS NOT NULL;

ALTER TABLE saga_steps
    ADD COLUMN kind text NOT NULL DEFAULT 'http' CHECK (kind IN ('http', 'charge', 'refund')),
    ADD COLUMN definition jsonb NOT NULL DEFAULT '{}',
    -- What the step produced that its compensation needs (the charge's id).
    ADD COLUMN result jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN last_response text,
    ADD COLUMN compensated_at timestamptz;

-- A parked saga's case. A saga whose failed compensation moves no money (an
-- HTTP participant that would not release stock) still opens a case, with
-- amount 0 and no posting: a person has to look at it all the same.
ALTER TABLE suspense_cases DROP CONSTRAINT suspense_cases_amount_check;
ALTER TABLE suspense_cases ALTER COLUMN currency DROP NOT NULL;
ALTER TABLE suspense_cases
    ADD CONSTRAINT suspense_cases_money_has_currency CHECK (amount = 0 OR currency IS NOT NULL),
    ADD CONSTRAINT suspense_cases_amount_check CHECK (amount >= 0),
    ADD COLUMN ledger_transaction_id bigint UNIQUE REFERENCES ledger_transactions (id),
    ADD CONSTRAINT suspense_cases_posted CHECK ((amount > 0) = (ledger_transaction_id IS NOT NULL));
-- One case per parked saga.
CREATE UNIQUE INDEX suspense_cases_one_per_saga ON suspense_cases (saga_id)
    WHERE saga_id IS NOT NULL;

-- Workers wake on this channel when work becomes due now.
COMMENT ON TABLE sagas IS 'NOTIFY keel_saga_due ''forward''|''compensate'' when work is due now';
