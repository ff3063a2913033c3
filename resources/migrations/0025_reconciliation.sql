-- Reconciliation (对账): the channels' daily statements against keel's books.
--
-- A statement is stored whole or not at all, once per file (its SHA-256). Its
-- lines are what the channel says it moved: payments and refunds in minor
-- units with the fee the channel kept (negative when a refund returns it).
-- A run compares one channel's business day with keel's postings and keeps
-- its breaks, which persist across runs under one id until later data or a
-- person resolves them.

-- Which channel a charge and a refund went through. Every payment so far went
-- through the simulated channel; the gateway names its channel from now on.
ALTER TABLE charges ADD COLUMN channel text NOT NULL DEFAULT 'sim'
    CHECK (channel ~ '^[a-z][a-z0-9_]{0,31}$');
ALTER TABLE refunds ADD COLUMN channel text NOT NULL DEFAULT 'sim'
    CHECK (channel ~ '^[a-z][a-z0-9_]{0,31}$');

-- A run reads a day's payments by when their money first reached the
-- clearing account.
CREATE INDEX ledger_transactions_money_moved ON ledger_transactions (created_at)
    WHERE kind IN ('capture', 'refund', 'suspense_in');

-- A channel's business day is cut in its own time zone, and its statement may
-- carry a late operation of the day before (settlement lag). The contracted
-- fee rate, in millionths of the amount, is what fee_variance checks; NULL
-- while no contract is recorded.
CREATE TABLE recon_channels (
    channel        text PRIMARY KEY CHECK (channel ~ '^[a-z][a-z0-9_]{0,31}$'),
    time_zone      text NOT NULL,
    settlement_lag interval NOT NULL DEFAULT '1 day'
                   CHECK (settlement_lag >= '0' AND settlement_lag <= '7 days'),
    fee_rate_ppm   integer CHECK (fee_rate_ppm BETWEEN 0 AND 1000000)
);
INSERT INTO recon_channels (channel, time_zone) VALUES
    ('sim', 'UTC'), ('stripe', 'UTC'),
    ('alipay', 'Asia/Shanghai'), ('wechatpay', 'Asia/Shanghai');

CREATE TABLE recon_statements (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel     text NOT NULL REFERENCES recon_channels (channel),
    format      text NOT NULL CHECK (format IN ('alipay', 'wechatpay', 'stripe', 'csv')),
    file_sha256 bytea NOT NULL CHECK (length(file_sha256) = 32),
    line_count  integer NOT NULL CHECK (line_count >= 0),
    imported_by text NOT NULL DEFAULT session_user,
    imported_at timestamptz NOT NULL DEFAULT now(),
    created_xact xid8 NOT NULL DEFAULT pg_current_xact_id(), -- the import's transaction
    UNIQUE (channel, file_sha256),
    UNIQUE (id, channel)
);

-- A line the channel reported once is stored once: the same bill downloaded
-- again, or once plain and once gzipped, is refused by its lines, not only by
-- its bytes. Two lines for one keel reference are the channel's duplicate.
CREATE TABLE recon_lines (
    statement_id      bigint NOT NULL,
    channel           text NOT NULL,
    line_no           integer NOT NULL CHECK (line_no > 0),
    kind              text NOT NULL CHECK (kind IN ('payment', 'refund')),
    reference         text NOT NULL, -- the charge or refund id keel sent
    channel_reference text NOT NULL CHECK (length(channel_reference) > 0),
    amount            bigint NOT NULL CHECK (amount > 0),
    currency          char(3) NOT NULL,
    fee               bigint NOT NULL,
    occurred_at       timestamptz NOT NULL,
    PRIMARY KEY (statement_id, line_no),
    UNIQUE (channel, kind, channel_reference)
);
CREATE INDEX recon_lines_occurred ON recon_lines (channel, occurred_at);
CREATE INDEX recon_lines_reference ON recon_lines (channel, reference);

-- A statement's lines are written with it, in its transaction, and never
-- added to later: what was imported and audited is what the runs read. The
-- statement and the currencies are checked once per COPY here rather than by
-- foreign keys row by row (a day's statement is a million rows).
CREATE FUNCTION recon_lines_with_their_statement() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM (SELECT DISTINCT statement_id, channel FROM added) a
               WHERE NOT EXISTS (
                   SELECT 1 FROM recon_statements s
                   WHERE s.id = a.statement_id AND s.channel = a.channel
                     AND s.created_xact = pg_current_xact_id()))
    THEN
        RAISE EXCEPTION 'a statement''s lines are written with it, never added later'
            USING ERRCODE = 'KL422';
    END IF;
    IF EXISTS (SELECT 1 FROM (SELECT DISTINCT currency FROM added) a
               WHERE NOT EXISTS (SELECT 1 FROM currencies c WHERE c.code = a.currency)) THEN
        RAISE EXCEPTION 'a statement line is in a currency keel does not know'
            USING ERRCODE = 'KL422';
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER recon_lines_with_their_statement AFTER INSERT ON recon_lines
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION recon_lines_with_their_statement();

-- A run's result is its breaks and counts; result_sha256 is the SHA-256 of
-- its canonical JSON, kept byte for byte (json, not jsonb), so a
-- recomputation proves the same inputs.
CREATE TABLE recon_runs (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel       text NOT NULL REFERENCES recon_channels (channel),
    business_date date NOT NULL,
    matched       integer NOT NULL CHECK (matched >= 0),
    breaks        integer NOT NULL CHECK (breaks >= 0),
    result_sha256 bytea NOT NULL CHECK (length(result_sha256) = 32),
    result        json NOT NULL,
    run_by        text NOT NULL DEFAULT session_user,
    run_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX recon_runs_day ON recon_runs (channel, business_date, id);

CREATE TABLE recon_breaks (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel        text NOT NULL REFERENCES recon_channels (channel),
    business_date  date NOT NULL,
    class          text NOT NULL CHECK (class IN ('missing_at_keel', 'missing_at_channel',
                                                  'amount_mismatch', 'status_mismatch',
                                                  'currency_mismatch', 'duplicate',
                                                  'fee_variance')),
    kind           text NOT NULL CHECK (kind IN ('payment', 'refund')),
    reference      text NOT NULL,
    currency       char(3) NOT NULL REFERENCES currencies (code),
    channel_amount bigint NOT NULL,
    keel_amount    bigint NOT NULL,
    -- pending: keel's record is not in the channel's statements yet, but the
    -- settlement lag has not passed. new: seen by one run. persisting: seen
    -- again by a later one. resolved: a later run no longer finds it.
    status         text NOT NULL DEFAULT 'new'
                   CHECK (status IN ('pending', 'new', 'persisting', 'resolved')),
    first_run_id   bigint NOT NULL REFERENCES recon_runs (id),
    last_run_id    bigint NOT NULL REFERENCES recon_runs (id),
    resolved_at    timestamptz,
    UNIQUE (channel, business_date, class, kind, reference),
    CHECK ((status = 'resolved') = (resolved_at IS NOT NULL))
);
CREATE INDEX recon_breaks_open ON recon_breaks (channel, business_date)
    WHERE status <> 'resolved';

-- Imports and runs are on the audit trail, with the file's and the result's
-- hashes, written by definer triggers as every audit row is.
CREATE FUNCTION recon_statements_audit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    PERFORM audit('recon_import', 'recon_statement', NEW.id::text,
                  jsonb_build_object('channel', NEW.channel, 'format', NEW.format,
                                     'lines', NEW.line_count,
                                     'sha256', encode(NEW.file_sha256, 'hex')));
    RETURN NULL;
END
$$;
CREATE TRIGGER recon_statements_audit AFTER INSERT ON recon_statements
    FOR EACH ROW EXECUTE FUNCTION recon_statements_audit();

CREATE FUNCTION recon_runs_audit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    PERFORM audit('recon_run', 'recon_run', NEW.id::text,
                  jsonb_build_object('channel', NEW.channel, 'date', NEW.business_date,
                                     'matched', NEW.matched, 'breaks', NEW.breaks,
                                     'sha256', encode(NEW.result_sha256, 'hex')));
    RETURN NULL;
END
$$;
CREATE TRIGGER recon_runs_audit AFTER INSERT ON recon_runs
    FOR EACH ROW EXECUTE FUNCTION recon_runs_audit();

-- A statement's fees are the channel's: they leave the clearing account for
-- the channel's fee expense, so that clearing nets to what the channel pays
-- out. Booked once per statement and currency, when the statement commits
-- with its lines.
ALTER TABLE ledger_transactions
    ADD COLUMN recon_statement_id bigint REFERENCES recon_statements (id);

CREATE FUNCTION recon_book_fees() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    fees record;
    posting bigint;
    expense bigint;
    clearing bigint;
BEGIN
    FOR fees IN SELECT currency, sum(fee) AS total FROM recon_lines
                WHERE statement_id = NEW.id GROUP BY currency HAVING sum(fee) <> 0
                ORDER BY currency LOOP
        INSERT INTO ledger_accounts (code, kind, currency)
            VALUES ('channel_fees:' || NEW.channel || ':' || fees.currency, 'expense',
                    fees.currency)
            ON CONFLICT (code) DO NOTHING;
        SELECT id INTO STRICT expense FROM ledger_accounts
            WHERE code = 'channel_fees:' || NEW.channel || ':' || fees.currency;
        SELECT id INTO STRICT clearing FROM ledger_accounts
            WHERE code = 'channel_clearing:' || fees.currency;
        INSERT INTO ledger_transactions (kind, description, recon_statement_id)
            VALUES ('channel_fee', 'fees of statement ' || NEW.id, NEW.id)
            RETURNING id INTO posting;
        INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
            VALUES (posting, expense, fees.currency, fees.total),
                   (posting, clearing, fees.currency, -fees.total);
    END LOOP;
    RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER recon_book_fees AFTER INSERT ON recon_statements
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION recon_book_fees();

-- A break a run still finds once the day's settlement lag has passed opens a
-- suspense case, once. What the channel holds that keel did not book (a
-- payment keel never made or failed, a payment or duplicate for more than
-- keel booked, a refund for less) is parked: debited to clearing, credited to
-- suspense, with the case holding exactly that. A shortfall (keel booked what
-- the channel does not have) and a fee or currency difference move nothing:
-- the case is for a person to chase.
ALTER TABLE suspense_cases ADD COLUMN recon_break_id bigint UNIQUE REFERENCES recon_breaks (id);

CREATE FUNCTION recon_open_cases(day_channel text, day date) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    found   recon_breaks;
    parked  bigint;
    charge  bigint;
    posting bigint;
    what    text;
    opened  integer := 0;
BEGIN
    FOR found IN SELECT b.* FROM recon_breaks b
                 WHERE b.channel = day_channel AND b.business_date = day
                   AND b.status IN ('new', 'persisting')
                   AND NOT EXISTS (SELECT 1 FROM suspense_cases c WHERE c.recon_break_id = b.id)
                 ORDER BY b.id FOR UPDATE LOOP
        -- A payment's parked money is its charge's, so that its next run sees
        -- it booked; a refund's is the case's alone.
        charge := CASE WHEN found.kind = 'payment' THEN
                      (SELECT id FROM charges WHERE public_id = found.reference
                       AND channel = day_channel) END;
        -- A charge the channel is still answering for waits for the next run.
        CONTINUE WHEN charge IS NOT NULL AND channel_operation_in_flight(charge);
        parked := CASE
            -- A charge keel still holds open (authorized) could yet be
            -- captured and book the money itself: not parked, only chased.
            WHEN found.kind = 'payment' AND found.class = 'status_mismatch'
                 AND charge IS NOT NULL
                 AND NOT EXISTS (SELECT 1 FROM payment_state p WHERE p.charge_id = charge
                                 AND p.state IN ('Failed', 'Canceled')) THEN 0
            WHEN found.kind = 'payment' AND found.class IN ('missing_at_keel', 'status_mismatch',
                                                            'amount_mismatch', 'duplicate')
                THEN greatest(found.channel_amount - found.keel_amount, 0)
            WHEN found.kind = 'refund' AND found.class IN ('amount_mismatch', 'missing_at_channel')
                THEN greatest(found.keel_amount - found.channel_amount, 0)
            ELSE 0 END;
        what := format('reconciliation of %s %s: %s %s %s (the channel %s, keel %s %s)',
                       day_channel, day, found.class, found.kind, found.reference,
                       found.channel_amount, found.keel_amount, found.currency);
        posting := NULL;
        IF parked > 0 THEN
            INSERT INTO ledger_transactions (kind, charge_id, description)
                VALUES ('suspense_in', charge, what) RETURNING id INTO posting;
            INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
            SELECT posting, a.id, found.currency,
                   CASE a.kind WHEN 'suspense' THEN -parked ELSE parked END
            FROM ledger_accounts a
            WHERE a.currency = found.currency
              AND (a.kind = 'suspense' OR a.code = 'channel_clearing:' || found.currency);
        END IF;
        INSERT INTO suspense_cases (charge_id, currency, amount, reason, ledger_transaction_id,
                                    recon_break_id)
            VALUES (charge, found.currency, parked, what, posting, found.id);
        opened := opened + 1;
    END LOOP;
    RETURN opened;
END
$$;
REVOKE EXECUTE ON FUNCTION recon_open_cases(text, date) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION recon_open_cases(text, date) TO keel_gateway;

-- The contracted fee rate is set by the service, on the trail.
CREATE FUNCTION recon_channels_audit() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    PERFORM audit('recon_fee_rate', 'recon_channel', NEW.channel,
                  jsonb_build_object('from_ppm', OLD.fee_rate_ppm, 'to_ppm', NEW.fee_rate_ppm));
    RETURN NULL;
END
$$;
CREATE TRIGGER recon_channels_audit AFTER UPDATE OF fee_rate_ppm ON recon_channels
    FOR EACH ROW WHEN (OLD.fee_rate_ppm IS DISTINCT FROM NEW.fee_rate_ppm)
    EXECUTE FUNCTION recon_channels_audit();

-- The simulated channel records the currency and whether an authorization
-- was a sale (authorized and captured in one message), so that it can write
-- its own daily statement from its own record.
ALTER TABLE sim_channel_operations
    ADD COLUMN currency char(3),
    ADD COLUMN sale boolean NOT NULL DEFAULT false;

-- Statements are imported and days reconciled by a service (a scheduled job
-- as the keel_gateway login), never by hand: a person who could write a line
-- or a break could hide a difference. People read the results; resolving a
-- break will be a guarded action. SREs see that runs happen, not the money.
GRANT SELECT ON recon_channels TO keel_gateway, keel_operator, keel_approver, keel_auditor,
    keel_sre;
GRANT SELECT, INSERT ON recon_statements, recon_lines, recon_runs TO keel_gateway;
GRANT UPDATE (fee_rate_ppm) ON recon_channels TO keel_gateway;
GRANT SELECT, INSERT, UPDATE ON recon_breaks TO keel_gateway;
GRANT SELECT ON recon_statements, recon_lines, recon_runs, recon_breaks
    TO keel_operator, keel_approver, keel_auditor;
GRANT USAGE ON SEQUENCE recon_statements_id_seq, recon_runs_id_seq, recon_breaks_id_seq
    TO keel_gateway;
