#pragma once

#include "core/Result.h"
#include "core/ops/Attention.h"

#include <QList>
#include <QSqlDatabase>
#include <QString>

#include <array>

namespace keel {

// The Overview's "now" figures for the SREs and settlement staff, each read
// through a small index; a figure the login may not read stays -1.
struct OperationsNow {
    // Outbox: rows waiting, the age of the oldest (ms), parked and not resent.
    qint64 outboxBacklog = -1;
    qint64 outboxOldestMs = -1;
    qint64 outboxParked = -1;
    // Sagas by status (running, compensating, parked), and how many are stuck.
    qint64 sagasRunning = -1;
    qint64 sagasCompensating = -1;
    qint64 sagasParked = -1;
    qint64 sagasStuck = -1;
    // Open suspense cases by age: 0–1 d, 1–3 d, 3–7 d, more than 7 d.
    std::array<qint64, 4> casesByAge{-1, -1, -1, -1};

    static Result<OperationsNow> load(QSqlDatabase db, const AttentionScope &scope);
};

} // namespace keel
