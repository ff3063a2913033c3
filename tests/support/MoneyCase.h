#pragma once

namespace keel::test {

// A suspense case that holds 176.32 USD, posted the way a parked saga posts
// it (the merchant's payable account debited, the suspense account
// credited), for a merchant "Tea House" with its USD payable account.
inline constexpr char MoneyCaseSql[] =
    "INSERT INTO keel.merchants (name, api_key_hash) VALUES ('Tea House', sha256('k')); "
    "INSERT INTO keel.ledger_accounts (code, kind, currency, merchant_id) "
    "  SELECT 'merchant_payable:' || id || ':USD', 'liability', 'USD', id FROM keel.merchants; "
    "WITH t AS (INSERT INTO keel.ledger_transactions (kind) VALUES ('suspense_in') "
    "  RETURNING id), "
    "e AS (INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
    "  SELECT t.id, a.id, 'USD', CASE a.kind WHEN 'suspense' THEN -17632 ELSE 17632 END "
    "  FROM t, keel.ledger_accounts a WHERE a.currency = 'USD' AND "
    "    (a.kind = 'suspense' OR a.code LIKE 'merchant_payable:%')) "
    "INSERT INTO keel.suspense_cases (amount, currency, reason, ledger_transaction_id, "
    "    merchant_id) "
    "  SELECT 17632, 'USD', 'refund refused by the channel', t.id, m.id FROM t, keel.merchants m "
    "  WHERE m.name = 'Tea House';";

// After MoneyCaseSql: a payment of Tea House's of 15.00 USD that the channel
// never reported, parked past the lag as owed (migration 0050): clearing
// credited, suspense debited, the case of its break `owed`.
inline constexpr char OwedCaseSql[] =
    "INSERT INTO keel.recon_runs (channel, business_date, matched, breaks, result_sha256, "
    "  result, day_lines) VALUES ('sim', '2026-11-20', 0, 1, sha256('run'::bytea), '{}', 0); "
    "INSERT INTO keel.recon_breaks (channel, business_date, class, kind, reference, currency, "
    "  channel_amount, keel_amount, status, first_run_id, last_run_id) "
    "  SELECT 'sim', '2026-11-20', 'missing_at_channel', 'payment', 'ch_unpaid000000001', "
    "  'USD', 0, 1500, 'new', id, id FROM keel.recon_runs; "
    "WITH t AS (INSERT INTO keel.ledger_transactions (kind) VALUES ('suspense_owed') "
    "  RETURNING id), "
    "e AS (INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
    "  SELECT t.id, a.id, 'USD', CASE a.kind WHEN 'suspense' THEN 1500 ELSE -1500 END "
    "  FROM t, keel.ledger_accounts a WHERE a.currency = 'USD' AND "
    "    (a.kind = 'suspense' OR a.code = 'channel_clearing:USD')) "
    "INSERT INTO keel.suspense_cases (amount, currency, reason, ledger_transaction_id, "
    "    merchant_id, recon_break_id, direction) "
    "  SELECT 1500, 'USD', 'the channel never reported ch_unpaid000000001', t.id, m.id, b.id, "
    "  'owed' FROM t, keel.merchants m, keel.recon_breaks b WHERE m.name = 'Tea House';";

} // namespace keel::test
