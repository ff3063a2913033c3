#pragma once

#include "core/Result.h"

#include <functional>

namespace keel {

class LibpqConnection;

struct SeedOptions {
    qint64 charges = 100000;
    int merchants = 20;
    int days = 30; // spread over the last this many days
};

// Bulk-loads realistic payment history for demos and benchmarks: charges in
// four currencies across merchants and states, their state and events, and
// balanced ledger postings for what was captured or refunded. Loads through
// COPY in chunks, one transaction each, reporting progress after each.
class HistorySeeder final {
public:
    static Result<qint64> seed(LibpqConnection &session, const SeedOptions &options,
                               const std::function<void(qint64 done)> &progress = {});
};

} // namespace keel
