#pragma once

#include "core/Result.h"

#include <QString>

namespace keel {

class LibpqConnection;

// The worker's half of guarded actions whose work is keel_core's (a saga's
// manual actions: they move money through the ledger and the saga engine's
// fenced writes). keel.execute_action() queues them once approved; this takes
// them one at a time, applies each target at the version the proposer froze,
// and reports every target's outcome back to the database, which records the
// execution and its audit entry.
class QueuedActions final {
public:
    explicit QueuedActions(LibpqConnection &connection) : m_connection(connection) {}

    // Runs what is queued now; how many actions it finished.
    Result<int> runOnce();
    // What keel.execute_action() NOTIFYs when it queues one.
    static QString channel() { return QStringLiteral("keel_actions"); }

private:
    Result<bool> runOne();

    LibpqConnection &m_connection;
};

} // namespace keel
