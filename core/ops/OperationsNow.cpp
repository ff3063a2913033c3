#include "core/ops/OperationsNow.h"

#include "core/db/QtSqlConnections.h"

#include <QSqlQuery>
#include <QVariant>

namespace keel {
namespace {

// Runs `sql` and hands its single row's columns to `into`, in order.
Status readRow(QSqlDatabase db, const QString &sql, std::initializer_list<qint64 *> into)
{
    QSqlQuery query(db);
    if (Status done = QtSqlConnections::exec(query, sql); !done)
        return done;
    if (!query.next())
        return {};
    int column = 0;
    for (qint64 *target : into)
        *target = query.value(column++).toLongLong();
    return {};
}

} // namespace

Result<OperationsNow> OperationsNow::load(QSqlDatabase db, const AttentionScope &scope)
{
    OperationsNow now;
    if (scope.outbox)
        if (Status read = readRow(
                db,
                QStringLiteral(
                    "SELECT (SELECT count(*) FROM keel.outbox WHERE published_at IS NULL AND "
                    "  parked_at IS NULL), "
                    "coalesce((SELECT (extract(epoch FROM now() - created_at) * 1000)::bigint "
                    "  FROM keel.outbox WHERE published_at IS NULL AND parked_at IS NULL "
                    "  ORDER BY id LIMIT 1), 0), "
                    "(SELECT count(*) FROM keel.outbox WHERE parked_at IS NOT NULL AND "
                    "  resent_at IS NULL)"),
                {&now.outboxBacklog, &now.outboxOldestMs, &now.outboxParked});
            !read)
            return read.error();
    if (scope.sagas) {
        if (Status read =
                readRow(db,
                        QStringLiteral("SELECT count(*) FILTER (WHERE status = 'running'), "
                                       "count(*) FILTER (WHERE status = 'compensating'), "
                                       "count(*) FILTER (WHERE status = 'parked') FROM keel.sagas "
                                       "WHERE status IN ('running', 'compensating', 'parked')"),
                        {&now.sagasRunning, &now.sagasCompensating, &now.sagasParked});
            !read)
            return read.error();
        Result<AttentionCounts> attention = Attention::load(db, {true, false, false, false, false});
        if (!attention)
            return attention.error();
        now.sagasStuck = attention->stuckSagas;
    }
    if (scope.cases)
        if (Status read = readRow(
                db,
                QStringLiteral(
                    "SELECT count(*) FILTER (WHERE opened_at > now() - interval '1 day'), "
                    "count(*) FILTER (WHERE opened_at <= now() - interval '1 day' AND "
                    "  opened_at > now() - interval '3 days'), "
                    "count(*) FILTER (WHERE opened_at <= now() - interval '3 days' AND "
                    "  opened_at > now() - interval '7 days'), "
                    "count(*) FILTER (WHERE opened_at <= now() - interval '7 days') "
                    "FROM keel.suspense_cases WHERE status IN ('open', 'in_review')"),
                {&now.casesByAge[0], &now.casesByAge[1], &now.casesByAge[2], &now.casesByAge[3]});
            !read)
            return read.error();
    return now;
}

} // namespace keel
