#pragma once

#include <QByteArray>

namespace keel {

// A day query (day_queries) rewritten to read the statement lines and the
// postings a run's snapshot saw (migration 0049), for `keel recon verify`:
// postings written by a transaction the snapshot saw (or before postings
// recorded theirs), lines of statements whose import it saw, and the lines of
// a statement withdrawn since, as they were. `snapshot` is pg_snapshot's text
// (xmin:xmax:xip,...); anything else gives an empty query, which fails.
QByteArray readAsOf(const char *sql, const QByteArray &snapshot);

} // namespace keel
