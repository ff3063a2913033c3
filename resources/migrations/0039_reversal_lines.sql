-- keel schema v39: a statement line may give a payment's money back.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- WeChat Pay's trade bill reports a paid order the merchant reversed as a
-- REVOKED row: the order's money went back to the payer, under the order's
-- own numbers, with no refund number of the merchant's. keel stores it as a
-- payment line of that order that reverses it, so that the order's run nets
-- the two. A reversal carries its order's channel id, which its payment line
-- carries too: the channel id is unique per kind and direction.

ALTER TABLE recon_lines ADD COLUMN reverses boolean NOT NULL DEFAULT false,
    ADD CONSTRAINT recon_lines_reverses_a_payment CHECK (NOT reverses OR kind = 'payment');
ALTER TABLE recon_lines DROP CONSTRAINT recon_lines_channel_kind_channel_reference_key,
    ADD CONSTRAINT recon_lines_channel_id_unique UNIQUE (channel, kind, channel_reference, reverses);

-- The simulated channel records a paid order it gave back on a reverse as
-- its own operation (WeChat Pay's simulator), so that its trade bill shows
-- the REVOKED row.
ALTER TABLE sim_channel_operations DROP CONSTRAINT sim_channel_operations_operation_check,
    ADD CONSTRAINT sim_channel_operations_operation_check
        CHECK (operation IN ('authorize', 'capture', 'refund', 'void', 'reverse'));

-- A withdrawn statement's lines move here whole (execute_statement_withdrawal
-- copies them column for column).
ALTER TABLE recon_withdrawn_lines ADD COLUMN reverses boolean NOT NULL DEFAULT false;

-- A paid order keel reverses is given back within minutes, so its REVOKED
-- row may fall on the next day, whose bill WeChat Pay publishes after 10:00
-- the day after that. The payment's day must stay pending until then, or it
-- parks money the next bill shows given back: two days at least.
UPDATE recon_channels SET settlement_lag = greatest(settlement_lag, interval '2 days')
WHERE channel = 'wechatpay';
