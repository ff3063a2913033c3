#pragma once

#include "core/Result.h"

#include <QDateTime>
#include <QList>
#include <QSqlDatabase>
#include <QString>

namespace keel {

// A message the relay gave up on, with the version an action freezes.
struct ParkedMessage {
    qint64 id = 0;
    QString version;   // the row's xmin
    QString aggregate; // "charge:ch_..."
    QString eventType;
    int attempts = 0;
    QString lastError;
    QDateTime parkedAt;
    qint64 resendOf = 0; // 0: an original
    int resendCount = 0;
};

// A merchant notification that gave up, likewise.
struct ParkedNotification {
    qint64 id = 0;
    QString version;
    qint64 merchantId = 0;
    QString eventId;
    QString eventType;
    QString chargeId;
    int attempts = 0;
    QString lastError;
    QDateTime parkedAt;
    int resendCount = 0;
};

struct ParkedGroup {
    QString error;
    qint64 count = 0;
};

struct OutboxSummary {
    qint64 backlog = 0;
    qint64 oldestPendingAgeMs = 0;
    QList<std::pair<QString, qint64>> backlogByType; // aggregate type, rows
    QList<ParkedGroup> parkedByError;                // messages still waiting for a person
    qint64 notificationsParked = 0;
};

// The SREs' read of the outbox: what is waiting, and what gave up. Resent
// rows no longer need anyone and are left out.
class OutboxQuery final {
public:
    OutboxQuery() = delete;

    static Result<OutboxSummary> summary(QSqlDatabase db);
    // Parked messages, oldest first; `error` narrows to one group.
    // Oldest first, the page after message `afterId` (0: the first page).
    static Result<QList<ParkedMessage>> parked(QSqlDatabase db, const QString &error, int limit,
                                               qint64 afterId = 0);
    static Result<QList<ParkedNotification>> parkedNotifications(QSqlDatabase db, int limit);
};

} // namespace keel
