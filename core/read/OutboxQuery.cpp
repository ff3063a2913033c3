#include "core/read/OutboxQuery.h"

#include "core/db/BoundQuery.h"
#include "core/db/QtSqlConnections.h"

#include <QSqlQuery>
#include <QVariant>

namespace keel {
Result<OutboxSummary> OutboxQuery::summary(QSqlDatabase db)
{
    OutboxSummary summary;
    QSqlQuery pending(db);
    if (Status done =
            runBound(pending, QStringLiteral("SELECT aggregate_type, count(*) FROM keel.outbox "
                                             "WHERE published_at IS NULL AND parked_at IS NULL "
                                             "GROUP BY 1 ORDER BY 2 DESC"));
        !done)
        return done.error();
    while (pending.next()) {
        const qint64 rows = pending.value(1).toLongLong();
        summary.backlogByType.append({pending.value(0).toString(), rows});
        summary.backlog += rows;
    }
    QSqlQuery oldest(db);
    if (Status done = runBound(
            oldest, QStringLiteral("SELECT coalesce((SELECT (extract(epoch FROM now() - "
                                   "created_at) * 1000)::bigint FROM keel.outbox WHERE "
                                   "published_at IS NULL AND parked_at IS NULL ORDER BY id "
                                   "LIMIT 1), 0)"));
        !done)
        return done.error();
    if (oldest.next())
        summary.oldestPendingAgeMs = oldest.value(0).toLongLong();
    QSqlQuery parked(db);
    if (Status done = runBound(
            parked, QStringLiteral("SELECT coalesce(last_error, ''), count(*) FROM keel.outbox "
                                   "WHERE parked_at IS NOT NULL AND resent_at IS NULL "
                                   "GROUP BY 1 ORDER BY 2 DESC, 1"));
        !done)
        return done.error();
    while (parked.next())
        summary.parkedByError.append({parked.value(0).toString(), parked.value(1).toLongLong()});
    QSqlQuery notifications(db);
    if (Status done = runBound(
            notifications, QStringLiteral("SELECT count(*) FROM keel.notifications WHERE status = "
                                          "'parked' AND resent_at IS NULL"));
        !done)
        return done.error();
    if (notifications.next())
        summary.notificationsParked = notifications.value(0).toLongLong();
    return summary;
}

Result<QList<ParkedMessage>> OutboxQuery::parked(QSqlDatabase db, const QString &error, int limit,
                                                 qint64 afterId)
{
    QSqlQuery query(db);
    if (Status done = runBound(
            query,
            QStringLiteral("SELECT id, xmin::text, aggregate_type || ':' || aggregate_id, "
                           "event_type, attempts, coalesce(last_error, ''), parked_at, "
                           "coalesce(resend_of, 0), resend_count FROM keel.outbox "
                           "WHERE parked_at IS NOT NULL AND resent_at IS NULL "
                           "AND (coalesce(?, '') = '' OR coalesce(last_error, '') = ?) AND id > ? "
                           "ORDER BY id LIMIT ?"),
            {error, error, afterId, limit});
        !done)
        return done.error();
    QList<ParkedMessage> messages;
    while (query.next())
        messages << ParkedMessage{
            query.value(0).toLongLong(), query.value(1).toString(),   query.value(2).toString(),
            query.value(3).toString(),   query.value(4).toInt(),      query.value(5).toString(),
            query.value(6).toDateTime(), query.value(7).toLongLong(), query.value(8).toInt()};
    return messages;
}

Result<QList<ParkedNotification>> OutboxQuery::parkedNotifications(QSqlDatabase db, int limit)
{
    QSqlQuery query(db);
    if (Status done = runBound(
            query,
            QStringLiteral("SELECT id, xmin::text, merchant_id, event_id, event_type, "
                           "charge_id, attempts, coalesce(last_error, ''), parked_at, "
                           "resend_count FROM keel.notifications WHERE status = 'parked' AND "
                           "resent_at IS NULL ORDER BY id LIMIT ?"),
            {limit});
        !done)
        return done.error();
    QList<ParkedNotification> parked;
    while (query.next())
        parked << ParkedNotification{query.value(0).toLongLong(), query.value(1).toString(),
                                     query.value(2).toLongLong(), query.value(3).toString(),
                                     query.value(4).toString(),   query.value(5).toString(),
                                     query.value(6).toInt(),      query.value(7).toString(),
                                     query.value(8).toDateTime(), query.value(9).toInt()};
    return parked;
}

} // namespace keel
