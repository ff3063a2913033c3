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
-- withdrawn statement still names it until the break's next run, which
-- resolves or changes the break on what is left.
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
    JOIN (SELECT channel, kind, reference, payment_reference FROM recon_lines
          UNION ALL
          SELECT channel, kind, reference, payment_reference FROM recon_withdrawn_lines) l
        ON l.channel = c.channel AND l.kind = 'refund'
        AND (l.payment_reference = c.public_id
             OR (l.payment_reference = c.channel_reference
                 AND NOT EXISTS (SELECT 1 FROM charges o
                                 WHERE o.channel_reference = c.channel_reference
                                   AND o.channel = c.channel AND o.id <> c.id)))
    JOIN recon_breaks b ON b.reference = l.reference AND b.channel = l.channel
        AND b.kind = 'refund'
    WHERE c.id = charge
      AND NOT EXISTS (SELECT 1 FROM refunds o
                      WHERE o.public_id = b.reference AND o.channel = b.channel)
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
