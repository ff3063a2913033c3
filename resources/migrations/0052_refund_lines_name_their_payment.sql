-- keel schema v52: a refund keel has no record of limits the refunds of the
-- charge it was paid out from.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- A refund line whose reference names no refund of keel's (one the merchant
-- made in the channel's own portal, or one whose record keel lost) was a
-- missing_at_keel break on no charge: its money was parked as owed, but the
-- charge it came from went on being refundable in full. keel could then send
-- the same refund again and the channel pay the customer twice. Every format
-- names the payment a refund line gives money back from (Alipay's and WeChat
-- Pay's 商户订单号, Stripe's payment metadata or charge_id, the optional
-- payment_reference of keel's CSV): the line keeps it, and a refund break
-- under no refund of keel's counts against the charge it names, by keel's id
-- or by the one id the channel has for that charge alone.

ALTER TABLE recon_lines ADD COLUMN payment_reference text
    CHECK (payment_reference IS NULL OR (kind = 'refund' AND length(payment_reference) > 0));

-- A withdrawn statement's lines move whole (migration 0039).
ALTER TABLE recon_withdrawn_lines ADD COLUMN payment_reference text;

-- Led by the id, as migration 0041's are: every line shares its channel.
CREATE INDEX recon_lines_payment_reference ON recon_lines (payment_reference, channel)
    WHERE payment_reference IS NOT NULL;
CREATE INDEX recon_withdrawn_lines_payment_reference
    ON recon_withdrawn_lines (payment_reference, channel) WHERE payment_reference IS NOT NULL;

-- A refund's breaks are found by reference whatever their status: a break a
-- person's write-off resolved still limits its charge through its case.
-- This index serves migration 0043's open breaks as well.
CREATE INDEX recon_breaks_reference ON recon_breaks (reference, channel, kind);
DROP INDEX recon_breaks_open_reference;

-- The refund breaks of a charge: those of its refunds, and those under no
-- refund of keel's whose lines name the charge as their payment. A line of a
-- withdrawn statement names it only while the break waits for its day's next
-- run, which judges it on the lines left. A break whose lines name different
-- payments names none, as an id naming two records names neither for a run.
CREATE FUNCTION charge_refund_breaks(charge bigint) RETURNS SETOF bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp ROWS 2 AS $$
    SELECT b.id
    FROM refunds r
    JOIN recon_breaks b ON b.reference = r.public_id AND b.channel = r.channel
        AND b.kind = 'refund'
    WHERE r.charge_id = charge
    UNION
    SELECT b.id
    FROM charges c
    JOIN (SELECT channel, kind, reference, payment_reference, true AS live FROM recon_lines
          UNION ALL
          SELECT channel, kind, reference, payment_reference, false FROM recon_withdrawn_lines) l
        ON l.channel = c.channel AND l.kind = 'refund'
        AND (l.payment_reference = c.public_id
             OR (l.payment_reference = c.channel_reference
                 AND NOT EXISTS (SELECT 1 FROM charges o
                                 WHERE o.channel_reference = c.channel_reference
                                   AND o.channel = c.channel AND o.id <> c.id)))
    JOIN recon_breaks b ON b.reference = l.reference AND b.channel = l.channel
        AND b.kind = 'refund'
    WHERE c.id = charge
      AND (l.live OR b.awaiting_run)
      AND NOT EXISTS (SELECT 1 FROM refunds o
                      WHERE o.public_id = b.reference AND o.channel = b.channel)
      AND NOT EXISTS (SELECT 1 FROM recon_lines o
                      WHERE o.reference = b.reference AND o.channel = b.channel
                        AND o.kind = 'refund'
                        AND o.payment_reference IS DISTINCT FROM l.payment_reference)
$$;
REVOKE EXECUTE ON FUNCTION charge_refund_breaks(bigint) FROM PUBLIC;

-- Migration 0050's rule, with the refund breaks read by the function above.
CREATE OR REPLACE FUNCTION charge_owed(charge bigint) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    WITH settled(kind) AS (VALUES ('case.adjust'), ('case.write_off')),
    owed AS (
        SELECT k.amount, k.opened_at FROM suspense_cases k
        WHERE k.charge_id = charge AND k.direction = 'owed'
          AND (k.status IN ('open', 'in_review')
               OR k.resolution ->> 'kind' IN (SELECT kind FROM settled)))
    SELECT (greatest(0, coalesce((SELECT sum(amount) FROM owed), 0)
                        - coalesce((SELECT sum(k.amount) FROM suspense_cases k
                                    WHERE k.charge_id = charge AND k.direction = 'held'
                                      AND k.recon_break_id IS NOT NULL AND k.saga_id IS NULL
                                      AND k.resolution ->> 'kind' IN (SELECT kind FROM settled)
                                      AND k.opened_at > (SELECT min(opened_at) FROM owed)), 0))
            + coalesce((SELECT sum(refund_break_owed(id))
                        FROM charge_refund_breaks(charge) id), 0))
        ::bigint
$$;

-- Migration 0051's rule, with the refund breaks read by the function above.
CREATE OR REPLACE FUNCTION charge_withheld(charge bigint) RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
    SELECT charge_taken_back(c.id) + charge_owed(c.id)
           + coalesce((SELECT sum(greatest(least(b.keel_amount, charge_clearing_holding(c.id))
                                           - greatest(b.channel_amount, 0), 0))
                       FROM recon_breaks b
                       WHERE b.channel = c.channel AND b.reference = c.public_id
                         AND b.kind = 'payment'
                         AND b.class IN ('status_mismatch', 'amount_mismatch')
                         AND b.status IN ('new', 'persisting', 'pending', 'accepted')
                         AND greatest(b.channel_amount, 0) < b.keel_amount
                         AND NOT recon_break_parked_as_owed(b)), 0)
           + coalesce((SELECT sum(greatest(b.channel_amount - greatest(b.keel_amount, 0)
                                           - refund_break_owed(b.id), 0))
                       FROM charge_refund_breaks(c.id) refund_break
                       JOIN recon_breaks b ON b.id = refund_break
                       WHERE b.status IN ('new', 'persisting', 'pending', 'accepted')
                         AND b.channel_amount > greatest(b.keel_amount, 0)), 0)
    FROM charges c
    WHERE c.id = charge
$$;

-- A match of a refund keel has no record of with keel's refund the channel
-- did not report says they are one movement: the line's refund is keel's.
-- Where the line names another charge than that refund's, they are not, and
-- the match would free the charge the line names to be refunded again.
ALTER FUNCTION break_resolution_problem(text, jsonb, jsonb)
    RENAME TO break_resolution_problem_of_0051;
REVOKE EXECUTE ON FUNCTION break_resolution_problem_of_0051(text, jsonb, jsonb)
    FROM keel_operator, keel_approver;

CREATE FUNCTION break_resolution_problem(kind text, targets jsonb, payload jsonb) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    problem text;
    named   record;
BEGIN
    problem := break_resolution_problem_of_0051(kind, targets, payload);
    IF problem IS NOT NULL OR kind <> 'recon_break.match' THEN
        RETURN problem;
    END IF;
    SELECT line_break.id AS line_break, l.payment_reference, r.public_id AS refund,
           c.public_id AS charge
        INTO named
    FROM recon_breaks line_break
    JOIN recon_lines l ON l.reference = line_break.reference
        AND l.channel = line_break.channel AND l.kind = 'refund'
    JOIN recon_breaks keel_break ON keel_break.class = 'missing_at_channel'
        AND keel_break.id IN ((targets -> 0 ->> 'id')::bigint, (targets -> 1 ->> 'id')::bigint)
    JOIN refunds r ON r.public_id = keel_break.reference AND r.channel = keel_break.channel
    JOIN charges c ON c.id = r.charge_id
    WHERE line_break.id IN ((targets -> 0 ->> 'id')::bigint, (targets -> 1 ->> 'id')::bigint)
      AND line_break.class = 'missing_at_keel' AND line_break.kind = 'refund'
      AND l.payment_reference IS NOT NULL
      AND l.payment_reference IS DISTINCT FROM c.public_id
      AND l.payment_reference IS DISTINCT FROM c.channel_reference
    ORDER BY l.line_no LIMIT 1;
    IF FOUND THEN
        RETURN format('break %s is a refund of %s by the channel''s line, and refund %s is of '
                      'charge %s: they are not one movement', named.line_break,
                      named.payment_reference, named.refund, named.charge);
    END IF;
    RETURN NULL;
END
$$;
REVOKE EXECUTE ON FUNCTION break_resolution_problem(text, jsonb, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION break_resolution_problem(text, jsonb, jsonb)
    TO keel_operator, keel_approver;
