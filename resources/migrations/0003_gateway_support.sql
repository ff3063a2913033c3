-- What the gateway needs beyond schema v1.

-- The simulated card channel that ships with keel stands in for an external
-- network. It remembers what it was asked, so that a payment whose answer was
-- lost can later be resolved by asking it (补单), from any gateway process.
-- UNLOGGED: it is not keel's record, and its writes should cost what a remote
-- call costs, not a durable commit.
CREATE UNLOGGED TABLE sim_channel_operations (
    reference   text NOT NULL,               -- the charge or refund id keel sent
    operation   text NOT NULL CHECK (operation IN ('authorize', 'capture', 'refund', 'void')),
    outcome     text NOT NULL CHECK (outcome IN ('approved', 'declined', 'failed')),
    amount      bigint NOT NULL CHECK (amount > 0),
    decline_code text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (reference, operation)
);

-- Raises when a guarded statement touched fewer rows than it had to, so that a
-- pipelined or batched transaction aborts instead of committing the rest.
CREATE FUNCTION require_rows(actual bigint, expected bigint, what text) RETURNS bigint
LANGUAGE plpgsql AS $$
BEGIN
    IF actual <> expected THEN
        RAISE EXCEPTION '%: expected % row(s), got %', what, expected, actual
            USING ERRCODE = 'KL409';
    END IF;
    RETURN actual;
END
$$;

-- Refunds by their charge, for the refund total and the history view.
CREATE INDEX refunds_charge ON refunds (charge_id, id);
-- The reconciler looks for payments left in flight by an ambiguous answer.
CREATE INDEX payment_state_in_flight ON payment_state (updated_at)
    WHERE state IN ('Authorizing', 'Capturing', 'Refunding');

GRANT SELECT, INSERT ON sim_channel_operations TO keel_gateway;
GRANT SELECT ON sim_channel_operations TO keel_auditor, keel_operator, keel_approver;
GRANT EXECUTE ON FUNCTION require_rows(bigint, bigint, text) TO keel_gateway;
