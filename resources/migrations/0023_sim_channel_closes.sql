-- The simulated channel learns to close an operation (关单). Its first answer
-- to a (reference, operation) is its only one, so a close is a row that says
-- "closed": a request for that operation arriving afterwards gets it instead
-- of being processed. keel closes an authorization or a refund before it
-- calls one failed, because a "not processed" or "never seen" answer speaks
-- only for the request that got it: a twin sent by a retry, a takeover or the
-- reconciler could still reach the network and take the customer's money for
-- a payment keel had failed (found by the chaos suite's failover run, seed
-- 1796287243392). A close carries no amount.
ALTER TABLE sim_channel_operations
    DROP CONSTRAINT sim_channel_operations_outcome_check,
    DROP CONSTRAINT sim_channel_operations_amount_check,
    ADD CONSTRAINT sim_channel_operations_outcome_check
        CHECK (outcome IN ('approved', 'declined', 'failed', 'closed')),
    ADD CONSTRAINT sim_channel_operations_amount_check
        CHECK (amount > 0 OR (outcome = 'closed' AND amount = 0));
