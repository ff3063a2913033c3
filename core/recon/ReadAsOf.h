#pragma once

#include <QByteArray>

namespace keel {

// A day query (day_queries) rewritten to read what run `runId` read
// (migration 0049), for `keel recon verify`: postings written by a
// transaction its snapshot saw (or before postings recorded theirs), lines of
// statements whose import it saw, the lines of a statement withdrawn since
// as they were, and its channel's time zone, settlement lag and fee rate as
// they were. Empty, which no server runs, if the query names one of those
// tables in a way the rewrite does not know.
QByteArray readAsOf(const char *sql, qint64 runId);

} // namespace keel
