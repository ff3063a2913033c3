#pragma once

#include <span>

namespace keel {

// One rule of `keel audit ledger`: a query returning the first row that
// breaks it (three text columns) and the sentence that names it.
struct LedgerCheck {
    const char *sql;
    const char *message; // %1..%3: the offending row's columns
};

// The whole book's rules, then each charge's and each case's.
std::span<const LedgerCheck> ledgerChecks();

} // namespace keel
