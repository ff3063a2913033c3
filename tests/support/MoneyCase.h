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

} // namespace keel::test
