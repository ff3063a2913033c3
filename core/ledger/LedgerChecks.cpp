#include "core/ledger/LedgerChecks.h"

namespace keel {
namespace {

// Each query returns the first offending row only: one line per broken
// rule, so a report stays readable when one bad row breaks several.
constexpr LedgerCheck Checks[] = {
    {"SELECT transaction_id::text, currency, sum(amount)::text FROM keel.ledger_entries "
     "GROUP BY transaction_id, currency HAVING sum(amount) <> 0 ORDER BY transaction_id LIMIT "
     "1",
     "ledger transaction %1 does not balance in %2: %3 left over"},
    {"SELECT currency, sum(amount)::text, '' FROM keel.ledger_entries GROUP BY currency "
     "HAVING sum(amount) <> 0 ORDER BY currency LIMIT 1",
     "the books do not sum to zero in %1: %2 (%3)"},
    {"SELECT e.id::text, e.currency, a.currency FROM keel.ledger_entries e "
     "JOIN keel.ledger_accounts a ON a.id = e.account_id WHERE a.currency <> e.currency "
     "ORDER BY e.id LIMIT 1",
     "ledger entry %1 is in %2 but its account is in %3"},
    {"SELECT c.public_id, c.amount_captured::text, coalesce(p.posted, 0)::text "
     "FROM keel.charges c LEFT JOIN (SELECT t.charge_id, sum(e.amount) AS posted "
     "  FROM keel.ledger_transactions t JOIN keel.ledger_entries e ON e.transaction_id = t.id "
     "  WHERE t.kind = 'capture' AND e.amount > 0 GROUP BY t.charge_id) p ON p.charge_id = "
     "c.id "
     "WHERE c.amount_captured <> coalesce(p.posted, 0) ORDER BY c.id LIMIT 1",
     "charge %1 records %2 captured but the ledger has %3 posted for it"},
    {"SELECT c.public_id, c.amount_refunded::text, coalesce(p.posted, 0)::text "
     "FROM keel.charges c LEFT JOIN (SELECT t.charge_id, sum(e.amount) AS posted "
     "  FROM keel.ledger_transactions t JOIN keel.ledger_entries e ON e.transaction_id = t.id "
     "  WHERE t.kind = 'refund' AND e.amount > 0 GROUP BY t.charge_id) p ON p.charge_id = c.id "
     "WHERE c.amount_refunded <> coalesce(p.posted, 0) ORDER BY c.id LIMIT 1",
     "charge %1 records %2 refunded but the ledger has %3 posted for it"},
    // A run's parking: a surplus credits suspense (suspense_in), a
    // shortfall debits it (suspense_owed); its case says which (in_suspense).
    {"SELECT t.id::text, coalesce(c.in_suspense, 0)::text, "
     "       (-sum(e.amount) FILTER (WHERE a.kind = 'suspense'))::text "
     "FROM keel.ledger_transactions t JOIN keel.ledger_entries e ON e.transaction_id = t.id "
     "JOIN keel.ledger_accounts a ON a.id = e.account_id "
     "LEFT JOIN keel.suspense_cases c ON c.ledger_transaction_id = t.id "
     "WHERE t.kind IN ('suspense_in', 'suspense_owed') GROUP BY t.id, c.in_suspense "
     "HAVING c.in_suspense IS DISTINCT FROM -sum(e.amount) FILTER (WHERE a.kind = 'suspense') "
     "ORDER BY t.id LIMIT 1",
     "suspense posting %1 belongs to no case or to one of another amount: the case records "
     "%2, the posting moves %3"},
    {"SELECT a.currency, coalesce(-sum(e.amount), 0)::text, "
     "       coalesce((SELECT sum(c.in_suspense) FROM keel.suspense_cases c "
     "         WHERE c.currency = a.currency AND c.status IN ('open', 'in_review')), 0)::text "
     "FROM keel.ledger_accounts a LEFT JOIN keel.ledger_entries e ON e.account_id = a.id "
     "WHERE a.kind = 'suspense' GROUP BY a.currency "
     "HAVING coalesce(-sum(e.amount), 0) <> coalesce((SELECT sum(c.in_suspense) FROM "
     "  keel.suspense_cases c WHERE c.currency = a.currency "
     "  AND c.status IN ('open', 'in_review')), 0) "
     "ORDER BY a.currency LIMIT 1",
     "the suspense account in %1 holds %2 but its open cases add up to %3"},
    {"SELECT c.id::text, c.status, (-coalesce(sum(e.amount), 0))::text "
     "FROM keel.suspense_cases c "
     "JOIN keel.ledger_transactions t ON t.id = c.ledger_transaction_id "
     "  OR t.suspense_case_id = c.id "
     "JOIN keel.ledger_entries e ON e.transaction_id = t.id "
     "JOIN keel.ledger_accounts a ON a.id = e.account_id AND a.kind = 'suspense' "
     "WHERE c.status NOT IN ('open', 'in_review') GROUP BY c.id, c.status "
     "HAVING sum(e.amount) <> 0 ORDER BY c.id LIMIT 1",
     "suspense case %1 is %2 but still holds %3 in suspense"},
    // Per charge, where keel holds the channel's own record (the simulated
    // channel's): what the channel took less what it returned (refunds, and a
    // paid order given back on a reverse) equals what keel booked through the
    // clearing account for the charge's captures and refunds. Payments still
    // in flight are left to the reconciler.
    {"WITH taken AS (SELECT c.id, c.public_id, coalesce(sum(o.amount) FILTER (WHERE "
     "    o.outcome = 'approved' AND o.operation = CASE WHEN c.capture THEN 'authorize' "
     "    ELSE 'capture' END), 0) - coalesce(sum(o.amount) FILTER (WHERE "
     "    o.outcome = 'approved' AND o.operation = 'reverse'), 0) AS amount "
     "  FROM keel.charges c JOIN keel.sim_channel_operations o ON o.reference = c.public_id "
     "  GROUP BY c.id, c.public_id), "
     "returned AS (SELECT r.charge_id, sum(o.amount) AS amount FROM keel.refunds r "
     "  JOIN keel.sim_channel_operations o ON o.reference = r.public_id "
     "  AND o.operation = 'refund' AND o.outcome = 'approved' GROUP BY r.charge_id), "
     "booked AS (SELECT t.charge_id, sum(e.amount) AS amount FROM keel.ledger_transactions t "
     "  JOIN keel.ledger_entries e ON e.transaction_id = t.id "
     "  JOIN keel.ledger_accounts a ON a.id = e.account_id "
     "  AND a.code LIKE 'channel_clearing:%' "
     "  WHERE t.kind IN ('capture', 'refund') GROUP BY t.charge_id) "
     "SELECT k.public_id, (k.amount - coalesce(r.amount, 0))::text, "
     "       coalesce(b.amount, 0)::text "
     "FROM taken k LEFT JOIN returned r ON r.charge_id = k.id "
     "LEFT JOIN booked b ON b.charge_id = k.id "
     "WHERE k.amount - coalesce(r.amount, 0) <> coalesce(b.amount, 0) "
     "  AND NOT EXISTS (SELECT 1 FROM keel.payment_state p WHERE p.charge_id = k.id "
     "    AND p.state IN ('Authorizing', 'Capturing', 'Refunding')) "
     "  AND NOT EXISTS (SELECT 1 FROM keel.refunds f WHERE f.charge_id = k.id "
     "    AND f.status = 'pending') "
     "ORDER BY k.id LIMIT 1",
     "charge %1: the channel's record says it holds %2 for it, keel's clearing account %3"},
    // Per charge: what its postings left in suspense is what its open
    // cases hold. Money moved into suspense twice, or handed back from a
    // case already closed, shows here against the one charge.
    {"SELECT c.public_id, (-sum(e.amount))::text, "
     "       coalesce((SELECT sum(k.in_suspense) FROM keel.suspense_cases k WHERE k.charge_id = "
     "         c.id AND k.status IN ('open', 'in_review')), 0)::text "
     "FROM keel.charges c JOIN keel.ledger_transactions t ON t.charge_id = c.id "
     "JOIN keel.ledger_entries e ON e.transaction_id = t.id "
     "JOIN keel.ledger_accounts a ON a.id = e.account_id AND a.kind = 'suspense' "
     "GROUP BY c.id, c.public_id "
     "HAVING -sum(e.amount) <> coalesce((SELECT sum(k.in_suspense) FROM keel.suspense_cases k "
     "  WHERE k.charge_id = c.id AND k.status IN ('open', 'in_review')), 0) "
     "ORDER BY c.id LIMIT 1",
     "charge %1 has %2 in suspense but its open cases hold %3"},
    // Per statement and currency: the fees its lines report are what was
    // booked to the channel's fee account for it, no more and no less; a
    // withdrawn statement's lines report none, so its booking nets to zero.
    {"SELECT coalesce(l.statement_id, b.recon_statement_id) || ' in ' || "
     "       coalesce(l.currency, b.currency), coalesce(l.fees, 0)::text, "
     "       coalesce(b.booked, 0)::text "
     "FROM (SELECT statement_id, currency, sum(fee) AS fees FROM keel.recon_lines "
     "      GROUP BY statement_id, currency) l "
     "FULL JOIN (SELECT t.recon_statement_id, e.currency, sum(e.amount) AS booked "
     "  FROM keel.ledger_transactions t JOIN keel.ledger_entries e ON e.transaction_id = t.id "
     "  JOIN keel.ledger_accounts a ON a.id = e.account_id AND a.code LIKE 'channel_fees:%' "
     "  WHERE t.kind = 'channel_fee' GROUP BY t.recon_statement_id, e.currency) b "
     "  ON b.recon_statement_id = l.statement_id AND b.currency = l.currency "
     "WHERE coalesce(l.fees, 0) <> coalesce(b.booked, 0) "
     "ORDER BY coalesce(l.statement_id, b.recon_statement_id) LIMIT 1",
     "statement %1 reports %2 in fees but %3 was booked to the channel's fee account"},
    // Per take-back: the posting its break's approved take-back made, of
    // what the break saw keel hold beyond the channel (migration 0043).
    {"SELECT posting, break, moved FROM keel.takeback_unsanctioned()",
     "take-back posting %1 is not what an approved take-back of its break posted (break %2, "
     "%3 moved out of clearing)"},
    // Per give-back: the posting an approved give-back of its case made, and
    // never more back to an account than take-backs of the charge charged it
    // (migration 0044).
    {"SELECT posting, charge, owed FROM keel.giveback_unsanctioned()",
     "give-back posting %1 of charge %2 is not what an approved give-back posted, or gave back "
     "more than was taken (%3 left taken)"},
    // Per open case: its own postings hold exactly its amount.
    {"SELECT k.id::text, k.in_suspense::text, held.amount::text FROM keel.suspense_cases k "
     "CROSS JOIN LATERAL (SELECT coalesce(-sum(e.amount), 0) AS amount "
     "  FROM keel.ledger_transactions t JOIN keel.ledger_entries e ON e.transaction_id = t.id "
     "  JOIN keel.ledger_accounts a ON a.id = e.account_id AND a.kind = 'suspense' "
     "  WHERE t.id = k.ledger_transaction_id OR t.suspense_case_id = k.id) held "
     "WHERE k.status IN ('open', 'in_review') AND held.amount <> k.in_suspense "
     "ORDER BY k.id LIMIT 1",
     "suspense case %1 is open for %2 but its postings hold %3 in suspense"},
};

} // namespace

std::span<const LedgerCheck> ledgerChecks()
{
    return Checks;
}

} // namespace keel
