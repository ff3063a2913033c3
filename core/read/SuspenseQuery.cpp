#include "core/read/SuspenseQuery.h"

#include "core/db/Database.h"

#include <QSqlQuery>
#include <QVariant>

#include <algorithm>

namespace keel {

Result<QList<SuspenseCaseRow>> SuspenseQuery::queue(QSqlDatabase db,
                                                    const SuspenseCaseFilter &filter)
{
    const QString status = filter.status == SuspenseCaseFilter::Status::Open
                               ? QStringLiteral("'open', 'in_review'")
                           : filter.status == SuspenseCaseFilter::Status::Resolved
                               ? QStringLiteral("'resolved', 'written_off'")
                               : QStringLiteral("'open', 'in_review', 'resolved', 'written_off'");
    QSqlQuery query(db);
    query.setForwardOnly(true);
    query.prepare(
        QStringLiteral(
            "SELECT k.id, coalesce(s.public_id, ''), coalesce(c.public_id, ''), "
            "  coalesce(k.currency, ''), coalesce(cur.exponent, 2), k.amount, k.status, "
            "  coalesce(k.owner, ''), k.reason, k.opened_at, k.opened_at + p.case_deadline, "
            "  k.status IN ('open', 'in_review') AND k.opened_at + p.case_deadline < now(), "
            "  coalesce(s.version, 0), k.xmin::text, "
            "  (extract(epoch FROM k.opened_at) * 1000000)::bigint "
            "FROM keel.suspense_cases k CROSS JOIN keel.ops_policy p "
            "LEFT JOIN keel.sagas s ON s.id = k.saga_id "
            "LEFT JOIN keel.charges c ON c.id = k.charge_id "
            "LEFT JOIN keel.currencies cur ON cur.code = k.currency "
            "WHERE k.status IN (%1) AND (NOT ? OR k.owner = session_user) "
            "  AND (NOT ? OR k.opened_at + p.case_deadline < now()) "
            "  AND (NOT ? OR (k.opened_at, k.id) > "
            "       (timestamptz 'epoch' + ? * interval '1 microsecond', ?)) "
            "ORDER BY k.opened_at, k.id LIMIT ?")
            .arg(status));
    query.addBindValue(filter.mineOnly);
    query.addBindValue(filter.overdueOnly);
    query.addBindValue(filter.after.has_value());
    query.addBindValue(filter.after ? filter.after->openedAtMicros : qint64(0));
    query.addBindValue(filter.after ? filter.after->id : qint64(0));
    query.addBindValue(filter.limit);
    if (Status done = Database::exec(query); !done)
        return done.error();
    QList<SuspenseCaseRow> rows;
    while (query.next()) {
        SuspenseCaseRow row;
        row.id = query.value(0).toLongLong();
        row.sagaId = query.value(1).toString();
        row.chargeId = query.value(2).toString();
        row.currency = query.value(3).toString();
        row.exponent = query.value(4).toInt();
        row.amount = query.value(5).toLongLong();
        row.status = query.value(6).toString();
        row.owner = query.value(7).toString();
        row.reason = query.value(8).toString();
        row.openedAt = query.value(9).toDateTime();
        row.deadline = query.value(10).toDateTime();
        row.overdue = query.value(11).toBool();
        row.sagaVersion = query.value(12).toInt();
        row.version = query.value(13).toString();
        row.openedAtMicros = query.value(14).toLongLong();
        rows << row;
    }
    return rows;
}

Result<QList<TimelineEntry>> SuspenseQuery::trail(QSqlDatabase db, const SuspenseCaseRow &row,
                                                  const QStringList &sources)
{
    QList<TimelineEntry> entries;
    if (!row.chargeId.isEmpty()) {
        Result<QList<TimelineEntry>> charge = HistoryQuery::timeline(db, row.chargeId, sources);
        if (!charge)
            return charge.error();
        entries = *charge;
    }
    // The case's own records: the saga's events, notes, and the actions on
    // the case or its saga with every decision on them.
    QSqlQuery query(db);
    query.setForwardOnly(true);
    query.prepare(QStringLiteral(
        "SELECT e.created_at, 'saga', 'step ' || coalesce(e.step_index::text, '-') || ' ' || "
        "e.event "
        "    || ' ' || e.detail::text "
        "  FROM keel.saga_events e JOIN keel.sagas s ON s.id = e.saga_id WHERE s.public_id = ? "
        "UNION ALL SELECT n.at, 'note', n.author || ': ' || n.note "
        "    || coalesce(' [' || n.reference || ']', '') "
        "  FROM keel.suspense_case_notes n WHERE n.case_id = ? "
        "UNION ALL SELECT a.proposed_at, 'action', '#' || a.id || ' ' || a.kind || ' proposed by ' "
        "    || a.proposed_by || ' (' || a.status || '): ' || a.reason "
        "  FROM keel.operator_actions a WHERE (a.target_type = 'suspense_case' AND "
        "    a.target_id = ?::text) OR (a.target_type = 'saga' AND a.target_id = ?) "
        "UNION ALL SELECT d.decided_at, 'action', '#' || a.id || ' ' || d.decision || 'd by ' "
        "    || d.decided_by || coalesce(': ' || d.comment, '') "
        "  FROM keel.approvals d JOIN keel.operator_actions a ON a.id = d.action_id "
        "  WHERE (a.target_type = 'suspense_case' AND a.target_id = ?::text) "
        "    OR (a.target_type = 'saga' AND a.target_id = ?) "
        "ORDER BY 1"));
    for (const QVariant &value : {QVariant(row.sagaId), QVariant(row.id), QVariant(row.id),
                                  QVariant(row.sagaId), QVariant(row.id), QVariant(row.sagaId)})
        query.addBindValue(value);
    if (Status done = Database::exec(query); !done)
        return done.error();
    while (query.next())
        entries.append(
            {query.value(0).toDateTime(), query.value(1).toString(), query.value(2).toString()});
    std::stable_sort(entries.begin(), entries.end(),
                     [](const TimelineEntry &a, const TimelineEntry &b) { return a.at < b.at; });
    return entries;
}

Result<QStringList> SuspenseQuery::adjustableAccounts(QSqlDatabase db, const QString &currency)
{
    QSqlQuery query(db);
    query.setForwardOnly(true);
    query.prepare(QStringLiteral("SELECT code FROM keel.ledger_accounts WHERE currency = ? AND "
                                 "kind <> 'suspense' ORDER BY merchant_id NULLS FIRST, code "
                                 "LIMIT 1000"));
    query.addBindValue(currency);
    if (Status done = Database::exec(query); !done)
        return done.error();
    QStringList codes;
    while (query.next())
        codes << query.value(0).toString();
    return codes;
}

Result<qint64> SuspenseQuery::suspenseBalance(QSqlDatabase db, const QString &currency)
{
    QSqlQuery query(db);
    query.prepare(
        QStringLiteral("SELECT coalesce(-sum(e.amount), 0)::bigint FROM keel.ledger_accounts a "
                       "JOIN keel.ledger_entries e ON e.account_id = a.id "
                       "WHERE a.kind = 'suspense' AND a.currency = ?"));
    query.addBindValue(currency);
    if (Status done = Database::exec(query); !done)
        return done.error();
    return query.next() ? query.value(0).toLongLong() : 0;
}

} // namespace keel
