-- keel schema v40: a statement line may undo a refund too.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- Stripe reports a refund that failed after it was reported as a balance
-- transaction of its own (reporting_category refund_failure): the refunded
-- money came back. keel stores it as a line of the refund that reverses it,
-- under the refund's own ids, so that the refund's run nets the two as a
-- payment's run nets a payment and its reversal.

ALTER TABLE recon_lines DROP CONSTRAINT recon_lines_reverses_a_payment;

-- Stripe also gives a disputed charge's money again when the merchant wins
-- (reporting_category dispute_reversal), under the same dispute as the row
-- that took it. keel stores that as a reversal of negative amount: what the
-- reversal takes back, given again. The dispute's two rows share their id
-- and direction, so the channel id is unique per kind, direction and sign.
ALTER TABLE recon_lines DROP CONSTRAINT recon_lines_amount_check,
    ADD CONSTRAINT recon_lines_amount_check CHECK (amount > 0 OR (reverses AND amount < 0)),
    DROP CONSTRAINT recon_lines_channel_id_unique;
CREATE UNIQUE INDEX recon_lines_channel_id_unique
    ON recon_lines (channel, kind, channel_reference, reverses, (amount > 0));

-- A refund keel booked that the channel undid is a status_mismatch with keel
-- holding more gone than the channel: the channel still holds the money, as
-- for a refund it made for less, and the case parks it. (Before, a refund's
-- status_mismatch was only ever keel booking nothing, which parks nothing:
-- the outer greatest() keeps that so.)
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
            -- A refund the channel made for less than keel let go, or undid:
            -- the channel holds the rest.
            -- A channel's side below 0 (a refund's undoing with no refund
            -- line seen) holds no more than nothing.
            WHEN broken.kind = 'refund' AND broken.class IN ('amount_mismatch', 'missing_at_channel',
                                                           'status_mismatch')
                THEN greatest(broken.keel_amount - greatest(broken.channel_amount, 0), 0)
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

-- Stripe's own fees (reporting_category fee: Radar, Billing and the like)
-- are money the channel kept on no charge or refund of keel's. keel stores
-- such a row as a line of kind 'fee', whose fee is what Stripe kept: it is
-- booked with the statement's other fees (so clearing still nets to the
-- payout) and matched against nothing.
ALTER TABLE recon_lines DROP CONSTRAINT recon_lines_kind_check,
    ADD CONSTRAINT recon_lines_kind_check CHECK (kind IN ('payment', 'refund', 'fee')),
    ADD CONSTRAINT recon_lines_fee_lines_reverse_nothing CHECK (kind <> 'fee' OR NOT reverses);
