#include "core/read/SuspenseQuery.h"

#include "core/db/QtSqlConnections.h"

#include <QSqlQuery>
#include <QVariant>

#include <algorithm>

namespace keel {

namespace {

// The queue's statement; %1 is the statuses shown. Every narrowing is a bound
// value that is NULL (or false) when unset.
const char QueueSql[] =
    "SELECT k.id, coalesce(s.public_id, ''), coalesce(c.public_id, ''), "
    "  coalesce(k.currency, ''), coalesce(cur.exponent, 2), k.amount, k.status, "
    "  coalesce(k.owner, ''), k.reason, k.opened_at, k.opened_at + p.case_deadline, "
    "  k.status IN ('open', 'in_review') AND k.opened_at + p.case_deadline < now(), "
    "  coalesce(s.version, 0), k.xmin::text, "
    "  (extract(epoch FROM k.opened_at) * 1000000)::bigint, coalesce(k.merchant_id, 0), "
    "  coalesce(c.out_trade_no, ''), "
    "  coalesce(n.channel || ' ' || n.notice_id || ': ' || n.outcome || "
    "    coalesce(' ' || n.amount || ' ' || n.currency, '') || ' (' || n.verdict || ')', "
    "    ''), "
    "  coalesce((SELECT state FROM keel.payment_state ps WHERE ps.charge_id = c.id), ''), "
    "  EXISTS (SELECT 1 FROM keel.recon_breaks b WHERE b.id = k.recon_break_id "
    "          AND b.awaiting_run), "
    "  k.direction = 'owed' "
    "FROM keel.suspense_cases k CROSS JOIN keel.ops_policy p "
    "LEFT JOIN keel.sagas s ON s.id = k.saga_id "
    "LEFT JOIN keel.charges c ON c.id = k.charge_id "
    "LEFT JOIN keel.currencies cur ON cur.code = k.currency "
    "LEFT JOIN keel.channel_notifications n ON n.id = k.channel_notification_id "
    "WHERE k.status IN (%1) AND (NOT ? OR k.owner = session_user) "
    "  AND (NOT ? OR k.opened_at + p.case_deadline < now()) "
    "  AND (NOT ? OR k.channel_notification_id IS NOT NULL) "
    "  AND k.amount >= coalesce(?::bigint, k.amount) "
    "  AND k.amount <= coalesce(?::bigint, k.amount) "
    "  AND k.opened_at >= coalesce(?::timestamptz, k.opened_at) "
    "  AND k.opened_at < coalesce(?::timestamptz, 'infinity') "
    "  AND (?::bigint IS NULL OR k.merchant_id = ?::bigint) "
    "  AND (?::text IS NULL OR c.public_id = ?::text) "
    "  AND (?::text IS NULL OR s.public_id = ?::text) "
    "  AND (?::text IS NULL OR c.out_trade_no = ?::text) "
    "  AND (NOT ? OR (k.opened_at, k.id) > "
    "       (timestamptz 'epoch' + ? * interval '1 microsecond', ?)) "
    "ORDER BY k.opened_at, k.id LIMIT ?";

QString statusesShown(SuspenseCaseFilter::Status status)
{
    switch (status) {
    case SuspenseCaseFilter::Status::Open:
        return QStringLiteral("'open', 'in_review'");
    case SuspenseCaseFilter::Status::Resolved:
        return QStringLiteral("'resolved', 'written_off'");
    case SuspenseCaseFilter::Status::All:
        break;
    }
    return QStringLiteral("'open', 'in_review', 'resolved', 'written_off'");
}

void bindFilter(QSqlQuery &query, const SuspenseCaseFilter &filter)
{
    const auto orNull = [](const QString &text) {
        return text.trimmed().isEmpty() ? QVariant(QMetaType::fromType<QString>())
                                        : QVariant(text.trimmed());
    };
    const QVariant noNumber(QMetaType::fromType<qint64>());
    const QVariant noTime(QMetaType::fromType<QDateTime>());
    const QVariant merchant = filter.merchantId > 0 ? QVariant(filter.merchantId) : noNumber;
    for (const QVariant &value :
         {QVariant(filter.mineOnly), QVariant(filter.overdueOnly), QVariant(filter.noticesOnly),
          filter.amountMin ? QVariant(*filter.amountMin) : noNumber,
          filter.amountMax ? QVariant(*filter.amountMax) : noNumber,
          filter.openedFrom.isValid() ? QVariant(filter.openedFrom) : noTime,
          filter.openedTo.isValid() ? QVariant(filter.openedTo) : noTime, merchant, merchant,
          orNull(filter.chargeId), orNull(filter.chargeId), orNull(filter.sagaId),
          orNull(filter.sagaId), orNull(filter.outTradeNo), orNull(filter.outTradeNo),
          QVariant(filter.after.has_value()),
          QVariant(filter.after ? filter.after->openedAtMicros : qint64(0)),
          QVariant(filter.after ? filter.after->id : qint64(0)), QVariant(filter.limit)})
        query.addBindValue(value);
}

SuspenseCaseRow caseAt(const QSqlQuery &query)
{
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
    row.merchantId = query.value(15).toLongLong();
    row.outTradeNo = query.value(16).toString();
    row.notice = query.value(17).toString();
    row.chargeState = query.value(18).toString();
    row.awaitingRun = query.value(19).toBool();
    row.owed = query.value(20).toBool();
    return row;
}

} // namespace

Result<QList<SuspenseCaseRow>> SuspenseQuery::queue(QSqlDatabase db,
                                                    const SuspenseCaseFilter &filter)
{
    QSqlQuery query(db);
    query.setForwardOnly(true);
    query.prepare(QString::fromLatin1(QueueSql).arg(statusesShown(filter.status)));
    bindFilter(query, filter);
    if (Status done = QtSqlConnections::exec(query); !done)
        return done.error();
    QList<SuspenseCaseRow> rows;
    while (query.next())
        rows << caseAt(query);
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
    // An action names the case or its saga among its frozen targets, alone
    // or in a bulk selection (operator_actions_targets, a GIN index).
    query.prepare(QStringLiteral(
        "WITH t AS (SELECT 'suspense_case'::text AS type, "
        "    jsonb_build_array(jsonb_build_object('id', ?::text)) AS mine "
        "  UNION ALL SELECT 'saga', jsonb_build_array(jsonb_build_object('id', ?::text)) "
        "  WHERE ?::text <> '') "
        "SELECT e.created_at, 'saga', 'step ' || coalesce(e.step_index::text, '-') || ' ' || "
        "e.event "
        "    || ' ' || e.detail::text "
        "  FROM keel.saga_events e JOIN keel.sagas s ON s.id = e.saga_id WHERE s.public_id = ? "
        "UNION ALL SELECT n.at, 'note', n.author || ': ' || n.note "
        "    || coalesce(' [' || n.reference || ']', '') "
        "  FROM keel.suspense_case_notes n WHERE n.case_id = ? "
        "UNION ALL SELECT a.proposed_at, 'action', '#' || a.id || ' ' || a.kind || ' proposed by ' "
        "    || a.proposed_by || ' (' || a.status || '): ' || a.reason "
        "  FROM keel.operator_actions a, t WHERE a.target_type = t.type AND a.targets @> t.mine "
        "UNION ALL SELECT d.decided_at, 'action', '#' || a.id || ' ' || d.decision || 'd by ' "
        "    || d.decided_by || coalesce(': ' || d.comment, '') "
        "  FROM keel.approvals d JOIN keel.operator_actions a ON a.id = d.action_id, t "
        "  WHERE a.target_type = t.type AND a.targets @> t.mine "
        "UNION ALL SELECT a.executed_at, 'action', '#' || a.id || ' ' || a.kind || ' ' || a.status "
        "    || ' by ' || coalesce(a.executed_by, '?') || ': ' || coalesce(("
        "      SELECT r ->> 'outcome' FROM jsonb_array_elements(a.after) r "
        "      WHERE r ->> 'id' IN (?::text, ?) LIMIT 1), 'no outcome') "
        "  FROM keel.operator_actions a, t WHERE a.target_type = t.type AND a.targets @> t.mine "
        "AND a.executed_at IS NOT NULL "
        "UNION ALL SELECT n.received_at, 'channel', n.channel || ' notice ' || n.notice_id || ': ' "
        "    || n.outcome || coalesce(' ' || n.amount || ' ' || n.currency, '') || ' -> ' "
        "    || n.verdict "
        "  FROM keel.channel_notifications n JOIN keel.suspense_cases k "
        "    ON k.channel_notification_id = n.id WHERE k.id = ? AND k.charge_id IS NULL "
        "ORDER BY 1"));
    const QVariant caseId(QString::number(row.id));
    for (const QVariant &value :
         {caseId, QVariant(row.sagaId), QVariant(row.sagaId), QVariant(row.sagaId),
          QVariant(row.id), caseId, QVariant(row.sagaId), QVariant(row.id)})
        query.addBindValue(value);
    if (Status done = QtSqlConnections::exec(query); !done)
        return done.error();
    while (query.next())
        entries.append(
            {query.value(0).toDateTime(), query.value(1).toString(), query.value(2).toString()});
    std::stable_sort(entries.begin(), entries.end(),
                     [](const TimelineEntry &a, const TimelineEntry &b) { return a.at < b.at; });
    return entries;
}

Result<QStringList> SuspenseQuery::adjustableAccounts(QSqlDatabase db, qint64 caseId)
{
    // The rule of keel.adjustment_problem() (migration 0021): only the
    // case's own accounts, so the list is short whatever the ledger holds.
    QSqlQuery query(db);
    query.setForwardOnly(true);
    query.prepare(QStringLiteral(
        "SELECT a.code FROM keel.suspense_cases c JOIN keel.ledger_accounts a "
        "  ON a.currency = c.currency AND a.kind <> 'suspense' "
        " AND (a.case_adjustable OR a.merchant_id = c.merchant_id "
        "      OR ((c.charge_id IS NOT NULL OR c.channel_notification_id IS NOT NULL) "
        "          AND a.code = 'channel_clearing:' || c.currency)) "
        "WHERE c.id = ? ORDER BY a.merchant_id NULLS LAST, a.code"));
    query.addBindValue(caseId);
    if (Status done = QtSqlConnections::exec(query); !done)
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
    if (Status done = QtSqlConnections::exec(query); !done)
        return done.error();
    return query.next() ? query.value(0).toLongLong() : 0;
}

Result<ExportSummary> SuspenseQuery::exportCsv(QSqlDatabase db, SuspenseCaseFilter filter,
                                               const QString &filterText, QIODevice &out)
{
    CsvFile csv(out);
    if (Status said = csv.comment(QStringLiteral("keel suspense cases; filter: ") + filterText);
        !said)
        return said.error();
    if (Status header =
            csv.row({QStringLiteral("case"), QStringLiteral("opened_at"), QStringLiteral("status"),
                     QStringLiteral("amount"), QStringLiteral("currency"),
                     QStringLiteral("merchant_id"), QStringLiteral("charge"),
                     QStringLiteral("out_trade_no"), QStringLiteral("charge_state"),
                     QStringLiteral("saga"), QStringLiteral("owner"), QStringLiteral("deadline"),
                     QStringLiteral("channel_notice"), QStringLiteral("reason")});
        !header)
        return header.error();
    const auto iso = [](const QDateTime &at) {
        return at.toUTC().toString(Qt::ISODateWithMs);
    };
    filter.after.reset();
    for (;;) {
        Result<QList<SuspenseCaseRow>> page = queue(db, filter);
        if (!page)
            return page.error();
        for (const SuspenseCaseRow &row : std::as_const(*page))
            if (Status written = csv.row(
                    {QString::number(row.id), iso(row.openedAt), row.status,
                     row.currency.isEmpty() ? QString()
                                            : HistoryQuery::formatAmount(row.amount, row.exponent),
                     row.currency, row.merchantId > 0 ? QString::number(row.merchantId) : QString(),
                     row.chargeId, row.outTradeNo, row.chargeState, row.sagaId, row.owner,
                     iso(row.deadline), row.notice, row.reason});
                !written)
                return written.error();
        if (page->size() < filter.limit)
            break;
        filter.after = page->constLast().cursor();
    }
    return csv.summary();
}

} // namespace keel
