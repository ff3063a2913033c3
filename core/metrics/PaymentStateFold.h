#pragma once

#include "core/Result.h"

namespace keel {

class LibpqConnection;

// Keeps "payments by state" current without counting payments: each pass folds
// new payment_events into keel.payment_state_totals and records the minute's
// totals for the Overview (the SQL function keel.fold_payment_states does the
// work, in one transaction). Any number of processes may call it; one folds.
class PaymentStateFold final {
public:
    // Passes until caught up or `maxRounds` batches were folded; returns the
    // event ids folded.
    static Result<qint64> run(LibpqConnection &session, int batch = 200000, int maxRounds = 10);
};

} // namespace keel
