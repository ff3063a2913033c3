#include "core/ops/Attention.h"

#include "core/db/QtSqlConnections.h"
#include "core/db/SessionInfo.h"
#include "core/saga/StuckSagas.h"

#include <QSqlQuery>
#include <QVariant>

namespace keel {
namespace {

Result<qint64> count(QSqlDatabase db, const QString &sql)
{
    QSqlQuery query(db);
    if (Status done = QtSqlConnections::exec(query, sql); !done)
        return done.error();
    return query.next() ? query.value(0).toLongLong() : 0;
}

} // namespace

AttentionScope AttentionScope::of(const SessionInfo &session)
{
    AttentionScope scope;
    scope.sagas =
        session.canRead(QStringLiteral("sagas")) && session.canRead(QStringLiteral("saga_steps"));
    scope.outbox = session.canRead(QStringLiteral("outbox"));
    scope.notifications = session.canRead(QStringLiteral("notifications"));
    scope.cases = session.canRead(QStringLiteral("suspense_cases"));
    scope.proposals = session.canRead(QStringLiteral("operator_actions"));
    scope.reconciliation = session.canRead(QStringLiteral("recon_breaks"));
    return scope;
}

Result<AttentionCounts> Attention::load(QSqlDatabase db, const AttentionScope &scope)
{
    // Each count reads through a partial index (sagas_due_*, outbox_parked_open,
    // notifications_parked_open, suspense_cases_open, operator_actions_status,
    // recon_breaks_open).
    AttentionCounts counts;
    const struct {
        bool readable;
        QString sql;
        qint64 *into;
    } figures[] = {
        {scope.sagas,
         QStringLiteral("SELECT count(*) FROM keel.sagas s WHERE ") +
             QString::fromLatin1(stuckSagas::condition())
                 .replace(QLatin1String("$1::int"),
                          QString::number(stuckSagas::DefaultAttemptLimit)),
         &counts.stuckSagas},
        {scope.outbox,
         QStringLiteral("SELECT count(*) FROM keel.outbox WHERE parked_at IS NOT NULL AND "
                        "resent_at IS NULL"),
         &counts.parkedMessages},
        {scope.notifications,
         QStringLiteral("SELECT count(*) FROM keel.notifications WHERE status = 'parked' AND "
                        "resent_at IS NULL"),
         &counts.parkedNotifications},
        {scope.cases,
         QStringLiteral("SELECT count(*) FROM keel.suspense_cases k, keel.ops_policy p WHERE "
                        "k.status IN ('open', 'in_review') AND k.opened_at + p.case_deadline < "
                        "now()"),
         &counts.overdueCases},
        {scope.cases,
         QStringLiteral("SELECT count(*) FROM keel.suspense_cases WHERE status IN ('open', "
                        "'in_review') AND channel_notification_id IS NOT NULL"),
         &counts.channelNotices},
        {scope.proposals,
         QStringLiteral("SELECT count(*) FROM keel.operator_actions WHERE status = 'proposed' "
                        "AND expires_at > now()"),
         &counts.waitingProposals},
        {scope.reconciliation,
         QStringLiteral("SELECT count(*) FROM keel.recon_breaks WHERE status IN ('new', "
                        "'persisting')"),
         &counts.reconBreaks},
    };
    for (const auto &figure : figures) {
        if (!figure.readable)
            continue;
        Result<qint64> value = count(db, figure.sql);
        if (!value)
            return value.error();
        *figure.into = *value;
    }
    return counts;
}

} // namespace keel
