-- keel schema v29: a case adjustment hands out what its case holds, and
-- nothing else.
-- Runs as keel_owner with search_path keel (set by the migrator).
--
-- Until now a case.adjust proposal had to name the case's own accounts and
-- come to what the case holds, but each posting could go either way: a case
-- of a charge holding 10.00 could take 1,000.00 off its merchant and put
-- 1,010.00 on the channel clearing account, and still balance. That is a
-- transfer between two accounts that the case never held, approved as if it
-- were the case's money. Now every posting receives part of what the case
-- releases from suspense (a negative amount in keel's signs), so no account
-- gets more than the case holds and none is charged for it. A reconciliation
-- case's cap on what it returns to clearing (0027) follows from this.
CREATE OR REPLACE FUNCTION adjustment_problem(case_id bigint, postings jsonb) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = keel, pg_temp AS $$
DECLARE
    held suspense_cases;
    merchant bigint;
    posting jsonb;
    account ledger_accounts;
    total bigint := 0;
BEGIN
    SELECT * INTO held FROM suspense_cases WHERE id = case_id;
    IF NOT FOUND THEN
        RETURN format('no suspense case %s', case_id);
    END IF;
    merchant := held.merchant_id;
    IF jsonb_typeof(postings) IS DISTINCT FROM 'array' THEN
        RETURN 'payload.postings must be a list of {"account", "amount"}';
    END IF;
    IF held.amount = 0 AND jsonb_array_length(postings) > 0 THEN
        RETURN format('case %s holds no money: an adjustment posts nothing', case_id);
    END IF;
    IF held.amount > 0 AND jsonb_array_length(postings) = 0 THEN
        RETURN 'payload.postings is empty';
    END IF;
    FOR posting IN SELECT * FROM jsonb_array_elements(postings) LOOP
        IF jsonb_typeof(posting -> 'amount') IS DISTINCT FROM 'number'
           OR (posting ->> 'amount') !~ '^-?[0-9]{1,18}$' OR (posting ->> 'amount')::bigint = 0 THEN
            RETURN format('posting %s: amount must be a non-zero whole number of minor units',
                          posting);
        END IF;
        IF (posting ->> 'amount')::bigint > 0 THEN
            RETURN format('posting %s: an adjustment only hands out what case %s holds; each '
                          'posting receives part of it (a negative amount), none is charged',
                          posting, case_id);
        END IF;
        SELECT * INTO account FROM ledger_accounts WHERE code = posting ->> 'account';
        IF NOT FOUND THEN
            RETURN format('posting %s: no ledger account %s', posting, posting ->> 'account');
        END IF;
        IF account.kind = 'suspense' THEN
            RETURN format('posting %s: the suspense leg is added by keel, not proposed', posting);
        END IF;
        IF account.currency <> held.currency THEN
            RETURN format('posting %s: account %s is in %s, the case in %s', posting,
                          account.code, account.currency, held.currency);
        END IF;
        IF NOT (account.case_adjustable
                OR (merchant IS NOT NULL AND account.merchant_id = merchant)
                OR ((held.charge_id IS NOT NULL OR held.channel_notification_id IS NOT NULL
                     OR held.recon_break_id IS NOT NULL)
                    AND account.code = 'channel_clearing:' || held.currency))
        THEN
            RETURN format('posting %s: account %s is outside case %s (its merchant''s accounts, '
                          'its charge''s or its break''s channel clearing account and keel''s '
                          'fee and loss accounts are)', posting, account.code, case_id);
        END IF;
        total := total + (posting ->> 'amount')::bigint;
    END LOOP;
    IF total <> -held.amount THEN
        RETURN format('the postings sum to %s %s; with the suspense leg of %s they must come to '
                      'zero (they should sum to %s)', total, held.currency, held.amount,
                      -held.amount);
    END IF;
    RETURN NULL;
END
$$;
