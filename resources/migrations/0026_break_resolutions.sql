-- Resolving a reconciliation break by hand, as guarded actions through the
-- same maker-checker as every other repair (keel_operator proposes, a second
-- person with keel_approver approves, execute_action() runs it once):
--  * recon_break.match: two breaks of one channel are one movement the channel
--    reported under a reference keel did not send — a missing_at_keel and a
--    missing_at_channel of the same kind, currency and amount. Both resolve.
--    Money a case of either parked in suspense goes back to the clearing
--    account (the movement was booked once after all), and their cases close.
--  * recon_break.accept: a person accepts a difference with a note until a
--    date (payload {"until": "YYYY-MM-DD"}, the end of that day in the
--    channel's zone, at most 90 days ahead). It leaves the difference and
--    opens no case meanwhile; a run after that date raises it again. Accepting
--    moves no money and leaves an existing case as it is.
--  * recon_break.fee_adjust: a fee_variance is booked. What the channel took
--    beyond the contracted fee becomes a claim on the channel
--    (channel_fee_claims:<channel>:<currency>) instead of fee expense; a fee
--    taken short of it, a debt to the channel. Its case of 0 closes.
-- A break a person resolved stays resolved while later runs find it with the
-- amounts that person saw; a change on either side raises it again, and so
-- does the channel reporting a matched record under keel's reference after
-- all. A break raised again opens a case again once its lag has passed.
-- Closing a break's case that held money in the workbench resolves the break
-- the same way; closing a case of 0 leaves the break open, since the
-- difference it chased is still there.
-- Runs as keel_owner with search_path keel.

-- A migration's rules are recorded where every migration is, in
-- schema_migrations with the file's checksum; the audit chain records changes
-- made to a running system's rules (migration 0021), and starts empty.
ALTER TABLE action_kinds DISABLE TRIGGER action_kinds_audit;
INSERT INTO action_kinds (kind, target_type, moves_money, executor) VALUES
    ('recon_break.match', 'recon_break', true, 'database'),
    ('recon_break.accept', 'recon_break', true, 'database'),
    ('recon_break.fee_adjust', 'recon_break', true, 'database');
ALTER TABLE action_kinds ENABLE TRIGGER action_kinds_audit;

ALTER TABLE recon_breaks DROP CONSTRAINT recon_breaks_status_check;
ALTER TABLE recon_breaks
    ADD CONSTRAINT recon_breaks_status_check
        CHECK (status IN ('pending', 'new', 'persisting', 'accepted', 'resolved')),
    ADD COLUMN accepted_until timestamptz,
    -- Who resolved or accepted it, how, and the amounts they saw; cleared
    -- when a later run raises it again (the action stays on the audit chain).
    ADD COLUMN resolution jsonb,
    -- When a later run last found it past a person's decision.
    ADD COLUMN raised_at timestamptz,
    ADD CONSTRAINT recon_breaks_accepted CHECK ((status = 'accepted') = (accepted_until IS NOT NULL));

-- The service writes what its runs find; a person's decision is written only
-- by execute_action(), through maker-checker.
REVOKE INSERT, UPDATE ON recon_breaks FROM keel_gateway;
GRANT INSERT (channel, business_date, class, kind, reference, currency, channel_amount,
              keel_amount, status, first_run_id, last_run_id),
      UPDATE (currency, channel_amount, keel_amount, status, last_run_id, resolved_at)
    ON recon_breaks TO keel_gateway;

-- A break has one open case at a time; one raised again after its case closed
-- may open another.
ALTER TABLE suspense_cases DROP CONSTRAINT suspense_cases_recon_break_id_key;
CREATE UNIQUE INDEX suspense_cases_open_per_break ON suspense_cases (recon_break_id)
    WHERE status IN ('open', 'in_review');
CREATE INDEX suspense_cases_recon_break ON suspense_cases (recon_break_id)
    WHERE recon_break_id IS NOT NULL;

-- A run rewrites each break it finds. One a person resolved, or accepted
-- until a date not yet past, keeps that while its amounts are the ones the
-- person saw; otherwise it is raised again and the decision cleared.
CREATE FUNCTION recon_breaks_keep_decision() RETURNS trigger
LANGUAGE plpgsql SET search_path = keel, pg_temp AS $$
DECLARE
    kept boolean;
BEGIN
    IF NEW.last_run_id <> OLD.last_run_id AND OLD.resolution IS NOT NULL THEN
        kept := NEW.currency = OLD.currency
            AND NEW.channel_amount = (OLD.resolution ->> 'channel_amount')::bigint
            AND NEW.keel_amount = (OLD.resolution ->> 'keel_amount')::bigint
            AND ((OLD.status = 'resolved' AND OLD.resolution ->> 'kind' <> 'recon_break.accept')
                 OR (OLD.status = 'accepted' AND OLD.accepted_until > now()));
        -- A line matched by hand to keel's record is an extra report once
        -- the channel reports that record under keel's own reference after all.
        IF kept AND OLD.resolution ->> 'kind' = 'recon_break.match'
           AND OLD.class = 'missing_at_keel' THEN
            kept := NOT EXISTS (
                SELECT 1 FROM recon_breaks counterpart JOIN recon_lines l
                    ON l.channel = counterpart.channel AND l.kind = counterpart.kind
                   AND l.reference = counterpart.reference
                WHERE counterpart.id = (OLD.resolution ->> 'counterpart')::bigint);
        END IF;
        IF kept THEN
            NEW.status := OLD.status;
            NEW.resolved_at := OLD.resolved_at;
            NEW.accepted_until := OLD.accepted_until;
        ELSE
            NEW.resolution := NULL;
            NEW.raised_at := now();
        END IF;
    END IF;
    -- A break resolved (by data or by a person) that is found again is
    -- raised: a case closed before may not stop a new one.
    IF OLD.status = 'resolved' AND NEW.status <> 'resolved' THEN
        NEW.raised_at := now();
    END IF;
    IF NEW.status <> 'accepted' THEN
        NEW.accepted_until := NULL;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER recon_breaks_keep_decision BEFORE UPDATE ON recon_breaks
    FOR EACH ROW EXECUTE FUNCTION recon_breaks_keep_decision();

-- An acceptance whose date has passed ends whether or not its day is run
-- again: the break is open once more, for the gauges and the headline, and
-- its day's next run opens its case.
CREATE FUNCTION recon_expire_acceptances() RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    WITH ended AS (
        UPDATE recon_breaks SET status = 'persisting', resolution = NULL, raised_at = now()
        WHERE status = 'accepted' AND accepted_until <= now() RETURNING 1)
    SELECT count(*)::integer FROM ended;
$$;
REVOKE EXECUTE ON FUNCTION recon_expire_acceptances() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION recon_expire_acceptances() TO keel_gateway;

-- Each fee adjustment names its break, so that a second one books only what
-- the first did not.
ALTER TABLE ledger_transactions ADD COLUMN recon_break_id bigint REFERENCES recon_breaks (id);

-- The channel's receivable (or payable) for fees it took other than the
-- contract says.
CREATE FUNCTION fee_claim_account(of_channel text, of_currency char(3)) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    account bigint;
BEGIN
    INSERT INTO ledger_accounts (code, kind, currency)
        VALUES ('channel_fee_claims:' || of_channel || ':' || of_currency, 'asset', of_currency),
               ('channel_fees:' || of_channel || ':' || of_currency, 'expense', of_currency)
        ON CONFLICT (code) DO NOTHING;
    SELECT id INTO STRICT account FROM ledger_accounts
        WHERE code = 'channel_fee_claims:' || of_channel || ':' || of_currency;
    RETURN account;
END
$$;
REVOKE EXECUTE ON FUNCTION fee_claim_account(text, char) FROM PUBLIC;

-- Why a resolution of these breaks may not be proposed or run, or NULL. The
-- same rules hold when it is proposed and when it runs.
CREATE FUNCTION break_resolution_problem(kind text, targets jsonb, payload jsonb) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    subject   recon_breaks;
    other   recon_breaks;
    swap    recon_breaks;
    until   date;
    zone    text;
    held    suspense_cases;
BEGIN
    IF EXISTS (SELECT 1 FROM jsonb_array_elements(targets) t
               WHERE t ->> 'id' !~ '^[1-9][0-9]{0,17}$') THEN
        RETURN 'a break is named by its number';
    END IF;
    IF kind = 'recon_break.match' AND jsonb_array_length(targets) <> 2 THEN
        RETURN 'a match names exactly two breaks';
    END IF;
    IF kind <> 'recon_break.match' AND jsonb_array_length(targets) <> 1 THEN
        RETURN 'this resolution names exactly one break';
    END IF;
    SELECT * INTO subject FROM recon_breaks WHERE id = (targets -> 0 ->> 'id')::bigint;
    IF NOT FOUND THEN
        RETURN format('no break %s', targets -> 0 ->> 'id');
    END IF;
    IF subject.status = 'pending' THEN
        RETURN format('break %s is pending: the channel may still report it', subject.id);
    END IF;
    IF subject.status NOT IN ('new', 'persisting')
       AND NOT (kind = 'recon_break.match' AND subject.status = 'accepted') THEN
        RETURN format('break %s is %s', subject.id, subject.status);
    END IF;
    CASE kind
    WHEN 'recon_break.accept' THEN
        IF jsonb_typeof(payload -> 'until') IS DISTINCT FROM 'string'
           OR (payload ->> 'until') !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' THEN
            RETURN 'payload.until must be a date, YYYY-MM-DD';
        END IF;
        BEGIN
            until := (payload ->> 'until')::date;
        EXCEPTION WHEN datetime_field_overflow OR invalid_datetime_format THEN
            RETURN format('payload.until: %s is not a date', payload ->> 'until');
        END;
        SELECT time_zone INTO STRICT zone FROM recon_channels WHERE channel = subject.channel;
        IF until < (now() AT TIME ZONE zone)::date
           OR until > (now() AT TIME ZONE zone)::date + 90 THEN
            RETURN format('payload.until: %s must be from today to 90 days ahead in %s', until,
                          zone);
        END IF;
    WHEN 'recon_break.fee_adjust' THEN
        IF subject.class <> 'fee_variance' THEN
            RETURN format('break %s is a %s; only a fee_variance books a fee adjustment',
                          subject.id, subject.class);
        END IF;
    WHEN 'recon_break.match' THEN
        SELECT * INTO other FROM recon_breaks WHERE id = (targets -> 1 ->> 'id')::bigint;
        IF NOT FOUND THEN
            RETURN format('no break %s', targets -> 1 ->> 'id');
        END IF;
        IF other.status = 'pending' THEN
            RETURN format('break %s is pending: the channel may still report it', other.id);
        END IF;
        IF other.status NOT IN ('new', 'persisting', 'accepted') THEN
            RETURN format('break %s is %s', other.id, other.status);
        END IF;
        IF subject.class = 'missing_at_channel' THEN -- keel's side second
            swap := subject;
            subject := other;
            other := swap;
        END IF;
        IF subject.class <> 'missing_at_keel' OR other.class <> 'missing_at_channel' THEN
            RETURN 'a match pairs a missing_at_keel with a missing_at_channel';
        END IF;
        IF subject.channel <> other.channel OR subject.kind <> other.kind
           OR subject.currency <> other.currency OR subject.channel_amount <> other.keel_amount THEN
            RETURN format('breaks %s and %s are not one movement: %s %s %s %s of %s against '
                          '%s %s %s %s of %s', subject.id, other.id, subject.channel, subject.kind,
                          subject.channel_amount, subject.currency, subject.reference, other.channel,
                          other.kind, other.keel_amount, other.currency, other.reference);
        END IF;
        FOR held IN SELECT k.* FROM suspense_cases k JOIN recon_breaks b
                        ON b.id = k.recon_break_id
                    WHERE k.recon_break_id IN (subject.id, other.id) AND k.amount > 0
                      AND k.status NOT IN ('open', 'in_review')
                      AND k.resolved_at >= coalesce(b.raised_at, '-infinity') LOOP
            RETURN format('case %s of break %s already moved its money (%s): resolve the rest '
                          'in the workbench', held.id, held.recon_break_id, held.status);
        END LOOP;
    ELSE
        RETURN format('%s is not a break resolution', kind);
    END CASE;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION break_resolution_problem(text, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION break_resolution_problem(text, jsonb, jsonb)
    TO keel_operator, keel_approver;

CREATE FUNCTION operator_actions_check_break_resolution() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    problem text;
BEGIN
    IF NEW.kind LIKE 'recon_break.%' THEN
        problem := break_resolution_problem(NEW.kind, NEW.targets, NEW.payload);
        IF problem IS NOT NULL THEN
            RAISE EXCEPTION '%', problem USING ERRCODE = 'KL422', COLUMN = 'targets';
        END IF;
    END IF;
    RETURN NEW;
END
$$;
-- Named to sort after operator_actions_admit, which checks the target list's shape.
CREATE TRIGGER operator_actions_check_break_resolution BEFORE INSERT ON operator_actions
    FOR EACH ROW EXECUTE FUNCTION operator_actions_check_break_resolution();

-- Closes a break's open case as part of a resolution: money it parked goes
-- back to the clearing account it came from.
CREATE FUNCTION close_break_case(held suspense_cases, proposal operator_actions) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    posted bigint;
BEGIN
    IF held.amount > 0 THEN
        INSERT INTO ledger_transactions (kind, charge_id, description, suspense_case_id)
        VALUES ('adjustment', held.charge_id,
                format('case %s, action #%s: %s', held.id, proposal.id, proposal.reason), held.id)
        RETURNING id INTO posted;
        INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
        SELECT posted, a.id, a.currency,
               CASE a.kind WHEN 'suspense' THEN held.amount ELSE -held.amount END
        FROM ledger_accounts a
        WHERE a.currency = held.currency
          AND (a.kind = 'suspense' OR a.code = 'channel_clearing:' || held.currency);
    END IF;
    UPDATE suspense_cases
    SET status = 'resolved', resolved_at = now(),
        resolution = jsonb_build_object('action', proposal.id, 'kind', proposal.kind,
                                        'reason', proposal.reason, 'ledger_transaction', posted)
    WHERE id = held.id;
    RETURN posted;
END
$$;
REVOKE EXECUTE ON FUNCTION close_break_case(suspense_cases, operator_actions) FROM PUBLIC;

CREATE FUNCTION execute_break_resolution(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    target  jsonb;
    subject   recon_breaks;
    version text;
    problem text;
    held    suspense_cases;
    posted  bigint;
    account bigint;
    results jsonb := '[]';
    changed boolean := false;
    named   bigint[];
    claimed bigint;
BEGIN
    IF EXISTS (SELECT 1 FROM jsonb_array_elements(proposal.targets) t
               WHERE t ->> 'id' !~ '^[1-9][0-9]{0,17}$') THEN
        RETURN (SELECT jsonb_agg(jsonb_build_object('id', t ->> 'id', 'outcome', 'missing'))
                FROM jsonb_array_elements(proposal.targets) t);
    END IF;
    -- The breaks and then their open cases, each in id order, as the
    -- workbench's case actions take them: two resolutions wait for each other
    -- instead of deadlocking.
    named := ARRAY(SELECT (t ->> 'id')::bigint FROM jsonb_array_elements(proposal.targets) t);
    PERFORM 1 FROM recon_breaks WHERE id = ANY(named) ORDER BY id FOR UPDATE;
    PERFORM 1 FROM suspense_cases
    WHERE recon_break_id = ANY(named) AND status IN ('open', 'in_review') ORDER BY id FOR UPDATE;
    -- Every target at the version its proposer saw, or none is touched.
    FOR target IN SELECT * FROM jsonb_array_elements(proposal.targets) LOOP
        version := NULL;
        SELECT b.xmin::text INTO version FROM recon_breaks b
        WHERE b.id = (target ->> 'id')::bigint;
        IF version IS NULL THEN
            results := results || jsonb_build_object('id', target ->> 'id', 'outcome', 'missing');
            changed := true;
        ELSIF version <> target ->> 'version' THEN
            results := results || jsonb_build_object('id', target ->> 'id', 'outcome', 'changed');
            changed := true;
        ELSE
            results := results || jsonb_build_object('id', target ->> 'id', 'outcome', 'changed',
                                                     'message', 'another target changed');
        END IF;
    END LOOP;
    IF changed THEN
        RETURN results;
    END IF;
    problem := break_resolution_problem(proposal.kind, proposal.targets, proposal.payload);
    IF problem IS NOT NULL THEN
        RETURN (SELECT jsonb_agg(jsonb_build_object('id', t ->> 'id', 'outcome', 'not_allowed',
                                                    'message', problem))
                FROM jsonb_array_elements(proposal.targets) t);
    END IF;
    results := '[]';
    FOR target IN SELECT * FROM jsonb_array_elements(proposal.targets) LOOP
        SELECT * INTO subject FROM recon_breaks WHERE id = (target ->> 'id')::bigint;
        posted := NULL;
        SELECT * INTO held FROM suspense_cases
        WHERE recon_break_id = subject.id AND status IN ('open', 'in_review');
        IF proposal.kind = 'recon_break.fee_adjust' THEN
            account := fee_claim_account(subject.channel, subject.currency);
            -- What earlier adjustments of this break claimed already (the
            -- contracted rate may have changed since).
            SELECT coalesce(sum(e.amount), 0) INTO claimed
            FROM ledger_transactions t JOIN ledger_entries e ON e.transaction_id = t.id
            WHERE t.recon_break_id = subject.id AND e.account_id = account;
            IF subject.channel_amount - subject.keel_amount <> claimed THEN
                INSERT INTO ledger_transactions (kind, description, recon_break_id)
                VALUES ('fee_adjustment',
                        format('break %s, action #%s: %s fee %s against the contracted %s %s',
                               subject.id, proposal.id, subject.reference,
                               subject.channel_amount, subject.keel_amount, subject.currency),
                        subject.id)
                RETURNING id INTO posted;
                INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
                SELECT posted, a.id, a.currency,
                       CASE a.id WHEN account
                           THEN subject.channel_amount - subject.keel_amount - claimed
                           ELSE claimed - (subject.channel_amount - subject.keel_amount) END
                FROM ledger_accounts a
                WHERE a.id = account
                   OR a.code = 'channel_fees:' || subject.channel || ':' || subject.currency;
            END IF;
        END IF;
        IF held.id IS NOT NULL AND proposal.kind <> 'recon_break.accept' THEN
            posted := coalesce(close_break_case(held, proposal), posted);
        END IF;
        UPDATE recon_breaks
        SET status = CASE proposal.kind WHEN 'recon_break.accept' THEN 'accepted'
                                        ELSE 'resolved' END,
            resolved_at = CASE proposal.kind WHEN 'recon_break.accept' THEN NULL ELSE now() END,
            accepted_until = CASE proposal.kind WHEN 'recon_break.accept' THEN
                ((proposal.payload ->> 'until')::date + 1)::timestamp
                    AT TIME ZONE (SELECT time_zone FROM recon_channels c
                                  WHERE c.channel = subject.channel) END,
            resolution = jsonb_build_object('kind', proposal.kind, 'action', proposal.id,
                                            'proposed_by', proposal.proposed_by,
                                            'reason', proposal.reason,
                                            'payload', proposal.payload,
                                            'counterpart', (SELECT other FROM unnest(named) other
                                                            WHERE other <> subject.id),
                                            'channel_amount', subject.channel_amount,
                                            'keel_amount', subject.keel_amount)
        WHERE id = subject.id;
        results := results || jsonb_build_object('id', target ->> 'id', 'outcome', 'done',
                                                 'new_id', posted::text);
    END LOOP;
    RETURN results;
END
$$;
REVOKE EXECUTE ON FUNCTION execute_break_resolution(operator_actions) FROM PUBLIC;

CREATE OR REPLACE FUNCTION run_database_action(proposal operator_actions) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    CASE proposal.kind
        WHEN 'outbox.resend' THEN RETURN execute_outbox_resend(proposal);
        WHEN 'notification.resend' THEN RETURN execute_notification_resend(proposal);
        WHEN 'case.adjust', 'case.write_off' THEN RETURN execute_case_resolution(proposal);
        WHEN 'recon_break.match', 'recon_break.accept', 'recon_break.fee_adjust' THEN
            RETURN execute_break_resolution(proposal);
    END CASE;
END
$$;

-- A break's case that held money, closed in the workbench (adjusted or
-- written off), resolves the break: a person has answered for that money. A
-- case of 0 only chased the difference, which closing it does not remove.
CREATE FUNCTION suspense_case_resolves_break() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
BEGIN
    UPDATE recon_breaks b
    SET status = 'resolved', resolved_at = now(),
        resolution = jsonb_build_object('kind', 'case', 'case', NEW.id,
                                        'case_status', NEW.status,
                                        'action', NEW.resolution -> 'action',
                                        'channel_amount', b.channel_amount,
                                        'keel_amount', b.keel_amount)
    WHERE b.id = NEW.recon_break_id AND b.status <> 'resolved';
    RETURN NULL;
END
$$;
CREATE TRIGGER suspense_case_resolves_break AFTER UPDATE OF status ON suspense_cases
    FOR EACH ROW
    WHEN (NEW.recon_break_id IS NOT NULL AND NEW.amount > 0
          AND NEW.status IN ('resolved', 'written_off') AND OLD.status IN ('open', 'in_review'))
    EXECUTE FUNCTION suspense_case_resolves_break();

-- A break opens a case when it has none open and none closed since it was
-- last raised: a break raised again (a matched line reported under keel's
-- reference after all, an acceptance run out) parks what it holds again.
CREATE OR REPLACE FUNCTION recon_open_cases(day_channel text, day date) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    broken   recon_breaks;
    parked  bigint;
    charge  bigint;
    posting bigint;
    what    text;
    opened  integer := 0;
BEGIN
    FOR broken IN SELECT b.* FROM recon_breaks b
                 WHERE b.channel = day_channel AND b.business_date = day
                   AND b.status IN ('new', 'persisting')
                   AND NOT EXISTS (SELECT 1 FROM suspense_cases c
                                   WHERE c.recon_break_id = b.id
                                     AND (c.status IN ('open', 'in_review')
                                          OR c.resolved_at >= coalesce(b.raised_at,
                                                                       '-infinity')))
                 ORDER BY b.id FOR UPDATE LOOP
        -- A payment's parked money is its charge's, so that its next run sees
        -- it booked; a refund's is the case's alone.
        charge := CASE WHEN broken.kind = 'payment' THEN
                      (SELECT id FROM charges WHERE public_id = broken.reference
                       AND channel = day_channel) END;
        -- A charge the channel is still answering for waits for the next run.
        CONTINUE WHEN charge IS NOT NULL AND channel_operation_in_flight(charge);
        parked := CASE
            -- A charge keel still holds open (authorized) could yet be
            -- captured and book the money itself: not parked, only chased.
            WHEN broken.kind = 'payment' AND broken.class = 'status_mismatch'
                 AND charge IS NOT NULL
                 AND NOT EXISTS (SELECT 1 FROM payment_state p WHERE p.charge_id = charge
                                 AND p.state IN ('Failed', 'Canceled')) THEN 0
            WHEN broken.kind = 'payment' AND broken.class IN ('missing_at_keel', 'status_mismatch',
                                                            'amount_mismatch', 'duplicate')
                THEN greatest(broken.channel_amount - broken.keel_amount, 0)
            WHEN broken.kind = 'refund' AND broken.class IN ('amount_mismatch', 'missing_at_channel')
                THEN greatest(broken.keel_amount - broken.channel_amount, 0)
            ELSE 0 END;
        -- Money parked for this break before, by a case since closed, that
        -- is still in clearing (written off, say, not returned) is parked
        -- already: only the rest is. A charge's parked money is on the
        -- charge, which its run counts on keel's side instead.
        IF charge IS NULL AND parked > 0 THEN
            parked := greatest(parked - coalesce((
                SELECT sum(e.amount) FROM suspense_cases k
                JOIN ledger_transactions t
                    ON t.id = k.ledger_transaction_id OR t.suspense_case_id = k.id
                JOIN ledger_entries e ON e.transaction_id = t.id
                JOIN ledger_accounts a ON a.id = e.account_id
                    AND a.code = 'channel_clearing:' || broken.currency
                WHERE k.recon_break_id = broken.id), 0), 0);
        END IF;
        what := format('reconciliation of %s %s: %s %s %s (the channel %s, keel %s %s)',
                       day_channel, day, broken.class, broken.kind, broken.reference,
                       broken.channel_amount, broken.keel_amount, broken.currency);
        posting := NULL;
        IF parked > 0 THEN
            INSERT INTO ledger_transactions (kind, charge_id, description)
                VALUES ('suspense_in', charge, what) RETURNING id INTO posting;
            INSERT INTO ledger_entries (transaction_id, account_id, currency, amount)
            SELECT posting, a.id, broken.currency,
                   CASE a.kind WHEN 'suspense' THEN -parked ELSE parked END
            FROM ledger_accounts a
            WHERE a.currency = broken.currency
              AND (a.kind = 'suspense' OR a.code = 'channel_clearing:' || broken.currency);
        END IF;
        INSERT INTO suspense_cases (charge_id, currency, amount, reason, ledger_transaction_id,
                                    recon_break_id)
            VALUES (charge, broken.currency, parked, what, posting, broken.id);
        opened := opened + 1;
    END LOOP;
    RETURN opened;
END
$$;
