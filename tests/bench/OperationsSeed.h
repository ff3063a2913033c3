#pragma once

#include <QSqlDatabase>

namespace keel {

class LibpqConnection;

// What the SRE and settlement views read at production scale, written the
// way keel writes it: sagas with their steps (1% stuck: running past their
// deadline or past the attempt limit, the rest finished, compensated or
// parked), suspense cases (the parked sagas' and unmatched lines'), and the
// outbox (almost all published, a backlog, parked messages under a few
// errors).
struct OperationsScale {
    qint64 sagas = 100000;
    qint64 cases = 10000;
    qint64 outbox = 1000000;
    qint64 parked = 20000; // of the outbox rows
    qint64 backlog = 2000; // of the outbox rows
};

void seedOperations(LibpqConnection &session, const OperationsScale &scale);

// Each list's first page and the page at `depth`, refreshed five times each
// (medians), and the now-figures (outbox summary, operations panel,
// headline); printed as the benchmark's "operations" lines. Dies if a page
// does not come back full or a figure misses what was seeded.
void measureOperationLists(LibpqConnection &session, QSqlDatabase db, const OperationsScale &scale);

} // namespace keel
