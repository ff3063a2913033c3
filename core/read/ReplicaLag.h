#pragma once

#include "core/Result.h"

#include <QSqlDatabase>
#include <QString>

#include <optional>

namespace keel {

// How far a read replica trails its primary, as the console says it beside
// what it read there.
struct ReplicaLag {
    bool standby = false; // the server is in recovery (a replica at all)
    // A standby that has replayed all the primary had when asked, or whose
    // last replayed commit is under a second old.
    bool caughtUp = false;
    // Since the commit of the last transaction it replayed; empty when it has
    // replayed none since it started.
    std::optional<qint64> seconds;
};

// Where the primary's write-ahead log stands now (its insert position).
Result<QString> primaryWalPosition(QSqlDatabase primary);

// The replica against `primaryPosition`, read from the primary just before:
// caught up once it has replayed past that point or replayed a commit in the
// last second, else as old as its last replayed commit.
Result<ReplicaLag> replicaLag(QSqlDatabase replica, const QString &primaryPosition);

} // namespace keel
