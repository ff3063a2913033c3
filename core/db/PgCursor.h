#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QByteArrayList>

#include <functional>

namespace keel {

class LibpqConnection;
class PgRows;

// Reads every row of `sql` a batch at a time, through a cursor named `cursor`
// of the transaction the session is in: a million rows are never held whole
// as one libpq result, whose fresh memory cost a run as much as building its
// lines did. The plan is chosen for reading every row, as a plain query's is,
// but never split over parallel workers: PostgreSQL runs no cursor in
// parallel. The next batch is fetched on another thread while `take` works on
// one, so `take` must not use the session. Stops at the first batch `take`
// refuses, with the cursor closed.
Status readInBatches(LibpqConnection &session, const QByteArray &cursor, const QByteArray &sql,
                     const QByteArrayList &params, int batchRows,
                     const std::function<Status(const PgRows &)> &take);

} // namespace keel
