#include "core/read/HistoryQuery.h"

#include "core/db/QtSqlConnections.h"
#include "core/db/SessionInfo.h"

#include <QIODevice>
#include <QSqlQuery>
#include <QVariant>

namespace keel {
namespace {

QString csvField(const QString &value)
{
    if (!value.contains(u',') && !value.contains(u'"') && !value.contains(u'\n') &&
        !value.contains(u'\r'))
        return value;
    QString escaped = value;
    escaped.replace(u'"', QStringLiteral("\"\""));
    return u'"' + escaped + u'"';
}

} // namespace

QString HistoryQuery::formatAmount(qint64 minorUnits, int exponent)
{
    if (exponent <= 0)
        return QString::number(minorUnits);
    const QString digits = QString::number(qAbs(minorUnits)).rightJustified(exponent + 1, u'0');
    return (minorUnits < 0 ? QStringLiteral("-") : QString()) +
           digits.left(digits.size() - exponent) + u'.' + digits.right(exponent);
}

QString HistoryQuery::pageSql(const HistoryFilter &filter,
                              const std::optional<HistoryCursor> &after, QVariantList *binds)
{
    QStringList where;
    const auto add = [&](const QString &condition, const QVariant &value) {
        where << condition;
        *binds << value;
    };
    if (!filter.chargeId.isEmpty())
        add(QStringLiteral("c.public_id = ?"), filter.chargeId);
    if (!filter.outTradeNo.isEmpty())
        add(QStringLiteral("c.out_trade_no = ?"), filter.outTradeNo);
    if (filter.merchantId > 0)
        add(QStringLiteral("c.merchant_id = ?"), filter.merchantId);
    if (filter.minAmount)
        add(QStringLiteral("c.amount >= ?"), *filter.minAmount);
    if (filter.maxAmount)
        add(QStringLiteral("c.amount <= ?"), *filter.maxAmount);
    if (!filter.currency.isEmpty())
        add(QStringLiteral("c.currency = ?"), filter.currency.toUpper());
    // Checked per payment while walking them newest first, so a page stops
    // once it is full; a join here had the planner read every charge.
    if (!filter.state.isEmpty())
        add(QStringLiteral(
                "(SELECT f.state FROM keel.payment_state f WHERE f.charge_id = c.id) = ?"),
            filter.state);
    if (filter.from.isValid())
        add(QStringLiteral("c.created_at >= ?"), filter.from.toUTC());
    if (filter.to.isValid())
        add(QStringLiteral("c.created_at < ?"), filter.to.toUTC());
    if (after) {
        where << QStringLiteral("(c.created_at, c.id) < (?::timestamptz, ?)");
        *binds << after->createdAt << after->id;
    }
    return QStringLiteral(
               "SELECT c.id, c.public_id, c.merchant_id, m.name, c.out_trade_no, c.amount, "
               "  c.amount_captured, c.amount_refunded, c.currency, cur.exponent, s.state, "
               "  c.created_at, c.created_at::text "
               "FROM keel.charges c JOIN keel.payment_state s ON s.charge_id = c.id "
               "JOIN keel.merchants m ON m.id = c.merchant_id "
               "JOIN keel.currencies cur ON cur.code = c.currency ") +
           (where.isEmpty() ? QString()
                            : QStringLiteral("WHERE ") + where.join(QStringLiteral(" AND "))) +
           QStringLiteral(" ORDER BY c.created_at DESC, c.id DESC LIMIT ?");
}

Result<HistoryPage> HistoryQuery::page(QSqlDatabase db, const HistoryFilter &filter,
                                       const std::optional<HistoryCursor> &after, int limit)
{
    QVariantList binds;
    QSqlQuery query(db);
    query.setForwardOnly(true);
    query.prepare(pageSql(filter, after, &binds));
    for (const QVariant &value : std::as_const(binds))
        query.addBindValue(value);
    query.addBindValue(limit + 1); // one more tells whether another page exists
    if (Status status = QtSqlConnections::exec(query); !status)
        return status.error();
    HistoryPage page;
    HistoryCursor last;
    while (query.next()) {
        if (page.rows.size() == limit) {
            page.next = last;
            break;
        }
        HistoryRow row;
        row.publicId = query.value(1).toString();
        row.merchantId = query.value(2).toLongLong();
        row.merchantName = query.value(3).toString();
        row.outTradeNo = query.value(4).toString();
        row.amount = query.value(5).toLongLong();
        row.amountCaptured = query.value(6).toLongLong();
        row.amountRefunded = query.value(7).toLongLong();
        row.currency = query.value(8).toString();
        row.exponent = query.value(9).toInt();
        row.state = query.value(10).toString();
        row.created = query.value(11).toDateTime();
        last = {query.value(12).toString(), query.value(0).toLongLong()};
        page.rows << row;
    }
    return page;
}

namespace {

struct TimelineBranch {
    const char *source;
    QStringList tables; // what the session must be able to read
    const char *sql;
};

// Each branch reads through an index on the charge (or its refunds). Rows
// written in one transaction share a timestamp; rank and id keep them in the
// order they happened.
const QList<TimelineBranch> &timelineBranches()
{
    static const QList<TimelineBranch> branches{
        {"idempotency",
         {QStringLiteral("idempotency_keys")},
         "SELECT k.created_at, 'idempotency', 'key ' || k.status || ' for ' || k.endpoint "
         "  || coalesce(', answered ' || k.response_status, '') "
         "  || CASE WHEN k.recovered_count > 0 THEN ', taken over ' || k.recovered_count || ' "
         "time(s)' ELSE '' END, "
         "  0 AS rank, 0::bigint AS seq "
         "  FROM keel.idempotency_keys k, c WHERE k.resource_id = c.public_id "},
        {"refund",
         {QStringLiteral("refunds")},
         "SELECT r.created_at, 'refund', r.public_id || ' ' || r.amount || ' ' || "
         "r.currency || ' ' || r.status, "
         "  1, r.id FROM keel.refunds r, c WHERE r.charge_id = c.id "},
        {"state",
         {QStringLiteral("payment_events")},
         "SELECT e.created_at, 'state', e.from_state || ' -> ' || e.to_state || ' (' || "
         "e.event_type || ')' "
         "  || coalesce(', upstream ' || e.upstream_event_id, ''), 2, e.id "
         "  FROM keel.payment_events e, c WHERE e.charge_id = c.id "},
        {"ledger",
         {QStringLiteral("ledger_transactions"), QStringLiteral("ledger_entries"),
          QStringLiteral("ledger_accounts")},
         "SELECT t.created_at, 'ledger', t.kind || ': ' || string_agg(a.code || ' ' || "
         "  CASE WHEN le.amount > 0 THEN 'debit ' ELSE 'credit ' END || abs(le.amount) || ' ' || "
         "le.currency, '; ' ORDER BY le.id), "
         "  3, t.id "
         "  FROM keel.ledger_transactions t JOIN keel.ledger_entries le ON le.transaction_id = "
         "t.id "
         "  JOIN keel.ledger_accounts a ON a.id = le.account_id, c WHERE t.charge_id = c.id "
         "  GROUP BY t.id, t.created_at, t.kind "},
        {"outbox",
         {QStringLiteral("outbox")},
         "SELECT o.created_at, 'outbox', o.event_type || CASE WHEN o.published_at IS NULL "
         "  THEN ' (not yet published)' ELSE ' (published)' END, 4, o.id "
         "  FROM keel.outbox o, c WHERE o.aggregate_type = 'charge' AND o.aggregate_id = "
         "c.public_id "},
        // Each delivery attempt to the merchant, and a notification that gave up.
        {"notification",
         {QStringLiteral("notifications"), QStringLiteral("notification_attempts")},
         "SELECT a.started_at, 'notification', n.event_type || ' ' || n.event_id || "
         "  ' to the merchant, attempt ' || a.attempt || ': ' || "
         "  coalesce('HTTP ' || a.http_status, 'no answer') || ' in ' || a.latency_ms || ' ms' || "
         "  coalesce(' (' || a.error || ')', '') || "
         "  coalesce(', answered ' || left(a.response_excerpt, 80), ''), 5, "
         "  a.notification_id * 1000 + a.attempt "
         "  FROM keel.notifications n JOIN keel.notification_attempts a "
         "    ON a.notification_id = n.id, c WHERE n.charge_id = c.public_id "
         "UNION ALL SELECT n.parked_at, 'notification', n.event_type || ' ' || n.event_id || "
         "  ' parked after ' || n.attempts || ' attempts: ' || coalesce(n.last_error, ''), 5, "
         "  n.id * 1000 + 999 FROM keel.notifications n, c "
         "  WHERE n.charge_id = c.public_id AND n.status = 'parked' "},
        // What the channel itself said about the payment, and what keel made of it.
        {"channel",
         {QStringLiteral("channel_notifications")},
         "SELECT n.received_at, 'channel', n.channel || ' notice ' || n.notice_id || ': ' || "
         "  n.outcome || coalesce(' ' || n.amount || ' ' || n.currency, '') || ' -> ' || "
         "  n.verdict, 6, n.id FROM keel.channel_notifications n, c "
         "  WHERE n.reference = c.public_id "}};
    return branches;
}

} // namespace

QStringList HistoryQuery::timelineSources()
{
    QStringList sources;
    for (const TimelineBranch &branch : timelineBranches())
        sources << QString::fromLatin1(branch.source);
    return sources;
}

QStringList HistoryQuery::timelineSourcesFor(const SessionInfo &session)
{
    QStringList sources;
    for (const TimelineBranch &branch : timelineBranches()) {
        bool readable = true;
        for (const QString &table : branch.tables)
            readable = readable && session.canRead(table);
        if (readable)
            sources << QString::fromLatin1(branch.source);
    }
    return sources;
}

Result<QList<TimelineEntry>> HistoryQuery::timeline(QSqlDatabase db, const QString &chargeId,
                                                    const QStringList &sources)
{
    QStringList branches;
    for (const TimelineBranch &branch : timelineBranches())
        if (sources.contains(QString::fromLatin1(branch.source)))
            branches << QString::fromLatin1(branch.sql);
    if (branches.isEmpty())
        return QList<TimelineEntry>();
    QSqlQuery query(db);
    query.setForwardOnly(true);
    query.prepare(QStringLiteral("WITH c AS (SELECT id, public_id FROM keel.charges WHERE "
                                 "public_id = ?) ") +
                  branches.join(QStringLiteral("UNION ALL ")) + QStringLiteral("ORDER BY 1, 4, 5"));
    query.addBindValue(chargeId);
    if (Status status = QtSqlConnections::exec(query); !status)
        return status.error();
    QList<TimelineEntry> entries;
    while (query.next())
        entries.append(
            {query.value(0).toDateTime(), query.value(1).toString(), query.value(2).toString()});
    return entries;
}

Result<qint64> HistoryQuery::exportCsv(QSqlDatabase db, const HistoryFilter &filter, QIODevice &out,
                                       const std::function<bool(qint64)> &progress)
{
    qint64 written = 0;
    if (out.write((csvHeader() + u'\n').toUtf8()) < 0)
        return makeError(ErrorKind::Failed,
                         QStringLiteral("cannot write the file: %1").arg(out.errorString()));
    std::optional<HistoryCursor> cursor;
    do {
        Result<HistoryPage> next = page(db, filter, cursor, 1000);
        if (!next)
            return next.error();
        QByteArray chunk;
        for (const HistoryRow &row : std::as_const(next->rows))
            chunk += (csvLine(row) + u'\n').toUtf8();
        if (out.write(chunk) < 0)
            return makeError(ErrorKind::Failed,
                             QStringLiteral("cannot write the file: %1").arg(out.errorString()));
        written += next->rows.size();
        cursor = next->next;
        if (progress && !progress(written))
            return makeError(ErrorKind::Failed,
                             QStringLiteral("export canceled after %1 rows").arg(written));
    } while (cursor);
    return written;
}

QString HistoryQuery::csvHeader()
{
    return QStringLiteral("charge,created_utc,merchant_id,merchant,out_trade_no,currency,amount,"
                          "captured,refunded,state");
}

QString HistoryQuery::csvLine(const HistoryRow &row)
{
    return QStringList{csvField(row.publicId),
                       row.created.toUTC().toString(Qt::ISODateWithMs),
                       QString::number(row.merchantId),
                       csvField(row.merchantName),
                       csvField(row.outTradeNo),
                       row.currency,
                       formatAmount(row.amount, row.exponent),
                       formatAmount(row.amountCaptured, row.exponent),
                       formatAmount(row.amountRefunded, row.exponent),
                       row.state}
        .join(u',');
}

} // namespace keel
