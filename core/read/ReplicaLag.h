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
    // last replayed commit is under a second old by the primary's clock.
    bool caughtUp = false;
    // Since the commit of the last transaction it replayed, by the primary's
    // clock; empty when it has replayed none since it started.
    std::optional<qint64> seconds;
};

// Where the primary stands when asked: its write-ahead log insert position
// and its clock (seconds since the epoch, as text), so that the replica's
// age is measured against the clock its commits were stamped with.
struct PrimaryPosition {
    QString walInsert;
    QString epoch;
};
Result<PrimaryPosition> primaryWalPosition(QSqlDatabase primary);

// The replica against `primary`, read from the primary just before: caught
// up once it has replayed past that position or replayed a commit stamped
// less than a second before the primary's clock then, else as old as its
// last replayed commit by that clock.
Result<ReplicaLag> replicaLag(QSqlDatabase replica, const PrimaryPosition &primary);

} // namespace keel
