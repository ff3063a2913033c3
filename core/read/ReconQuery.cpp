#include "core/read/ReconQuery.h"

#include "core/db/BoundQuery.h"

#include <QHash>
#include <QSqlQuery>
#include <QVariant>

namespace keel {
namespace {

// The latest run of each channel's day, with the count of the day's lines
// the run kept (migration 0031): nothing here grows with the lines.
constexpr char LatestRuns[] =
    "SELECT r.id, r.channel, r.business_date, r.matched, r.breaks, r.run_at, "
    "  coalesce(r.day_lines, 0) "
    "FROM (SELECT DISTINCT ON (channel, business_date) * FROM keel.recon_runs "
    "      ORDER BY channel, business_date, id DESC) r "
    "ORDER BY r.business_date DESC, r.channel LIMIT ?";

// What the open breaks leave unexplained: fee and currency differences are
// not sums of money in one currency, and are counted, not added.
constexpr char OpenDifferences[] =
    "SELECT b.channel, b.business_date, b.currency, c.exponent, "
    "       sum(b.channel_amount - b.keel_amount) "
    "FROM keel.recon_breaks b JOIN keel.currencies c ON c.code = b.currency "
    "WHERE b.status IN ('pending', 'new', 'persisting') "
    "  AND b.class NOT IN ('fee_variance', 'currency_mismatch') "
    "GROUP BY 1, 2, 3, 4 ORDER BY 3";

constexpr char OpenBreaks[] =
    "SELECT b.id, b.channel, b.business_date, b.class, b.kind, b.reference, b.currency, "
    "       c.exponent, b.channel_amount, b.keel_amount, b.status, "
    "       (now() AT TIME ZONE z.time_zone)::date - b.business_date, coalesce(k.id, 0), "
    "       coalesce(k.status, ''), b.xmin::text, b.accepted_until, "
    "       b.awaiting_run "
    "FROM keel.recon_breaks b JOIN keel.currencies c ON c.code = b.currency "
    "JOIN keel.recon_channels z ON z.channel = b.channel "
    "LEFT JOIN LATERAL (SELECT id, status FROM keel.suspense_cases "
    "  WHERE recon_break_id = b.id ORDER BY id DESC LIMIT 1) k ON true "
    "WHERE b.status <> 'resolved' %1"
    "ORDER BY b.business_date, b.channel, b.class, b.kind, b.reference LIMIT ?";

// Where the previous page ended, in the order of recon_breaks_open_in_order.
constexpr char AfterBreak[] =
    "AND (b.business_date, b.channel, b.class, b.kind, b.reference) > (?::date, ?, ?, ?, ?) ";

// A break's age in days of its channel's own calendar: an Asia/Shanghai day
// starts eight hours before the UTC one.
constexpr char AgesOfOpenBreaks[] =
    "SELECT class, count(*) FILTER (WHERE age <= 1), "
    "  count(*) FILTER (WHERE age BETWEEN 2 AND 7), "
    "  count(*) FILTER (WHERE age BETWEEN 8 AND 30), "
    "  count(*) FILTER (WHERE age > 30) "
    "FROM (SELECT b.class, (now() AT TIME ZONE z.time_zone)::date - b.business_date AS age "
    "      FROM keel.recon_breaks b JOIN keel.recon_channels z ON z.channel = b.channel "
    "      WHERE b.status IN ('pending', 'new', 'persisting')) open "
    "GROUP BY class ORDER BY class";

constexpr char Statements[] =
    "SELECT id, channel, format, line_count, encode(file_sha256, 'hex'), imported_by, "
    "       imported_at, withdrawn_at, xmin::text "
    "FROM keel.recon_statements ORDER BY id DESC LIMIT ?";

// A break's lines: under keel's reference, and the lines the run matched to
// keel's record by the channel's own id: carrying the id keel kept for that
// record and for no other, and naming no record of keel's themselves.
constexpr char LinesOfBreak[] =
    "WITH b AS (SELECT ?::text AS channel, ?::text AS kind, ?::text AS reference), "
    "own AS (SELECT ch.channel_reference FROM keel.charges ch, b "
    "        WHERE b.kind = 'payment' AND ch.public_id = b.reference AND ch.channel = b.channel "
    "          AND (SELECT count(*) FROM keel.charges o WHERE o.channel = b.channel "
    "               AND o.channel_reference = ch.channel_reference) = 1 "
    "        UNION ALL "
    "        SELECT r.channel_reference FROM keel.refunds r, b "
    "        WHERE b.kind = 'refund' AND r.public_id = b.reference AND r.channel = b.channel "
    "          AND (SELECT count(*) FROM keel.refunds o WHERE o.channel = b.channel "
    "               AND o.channel_reference = r.channel_reference) = 1), "
    "found AS (SELECT l.* FROM b JOIN keel.recon_lines l ON l.channel = b.channel "
    "            AND l.kind = b.kind AND l.reference = b.reference "
    "          UNION ALL "
    "          SELECT l.* FROM b, own JOIN keel.recon_lines l "
    "            ON l.channel_reference = own.channel_reference "
    "          WHERE l.channel = b.channel AND l.kind = b.kind AND l.reference <> b.reference "
    "            AND NOT EXISTS (SELECT 1 FROM keel.charges o WHERE b.kind = 'payment' "
    "                            AND o.public_id = l.reference AND o.channel = b.channel) "
    "            AND NOT EXISTS (SELECT 1 FROM keel.refunds o WHERE b.kind = 'refund' "
    "                            AND o.public_id = l.reference AND o.channel = b.channel)) "
    // A reversal shows as the money it gave back.
    "SELECT f.statement_id, f.channel_reference, f.currency, c.exponent, "
    "       CASE WHEN f.reverses THEN -f.amount ELSE f.amount END, f.fee, "
    "       f.occurred_at, coalesce(f.payment_reference, '') "
    "FROM found f JOIN keel.currencies c ON c.code = f.currency ORDER BY f.occurred_at, f.line_no";

constexpr char ChargeOfBreak[] =
    "SELECT p.state, ch.currency, c.exponent, ch.amount, ch.amount_captured, ch.amount_refunded, "
    "       ch.created_at "
    "FROM keel.charges ch JOIN keel.payment_state p ON p.charge_id = ch.id "
    "JOIN keel.currencies c ON c.code = ch.currency WHERE ch.public_id = ?";

// A break's life, oldest first, and what happened at one moment in the
// order it happens; every ? is the break's id. The actions are those whose
// targets name it, as ActionDesk writes targets.
constexpr char TimelineOfBreak[] =
    "WITH b AS (SELECT * FROM keel.recon_breaks WHERE id = ?::bigint), "
    "mine AS (SELECT jsonb_build_array(jsonb_build_object('id', ?::text)) AS targets) "
    "SELECT r.run_at, 'run', format('raised by run %s as %s', r.id, b.class), 0 "
    "  FROM b JOIN keel.recon_runs r ON r.id = b.first_run_id "
    "UNION ALL SELECT r.run_at, 'run', format('last found by run %s', r.id), 1 "
    "  FROM b JOIN keel.recon_runs r ON r.id = b.last_run_id "
    "  WHERE b.last_run_id <> b.first_run_id "
    "UNION ALL SELECT b.raised_at, 'run', 'opened again', 2 FROM b WHERE b.raised_at IS NOT NULL "
    "UNION ALL SELECT k.opened_at, 'case', format('suspense case %s opened; now %s', k.id, "
    "  k.status), 3 FROM keel.suspense_cases k JOIN b ON k.recon_break_id = b.id "
    "UNION ALL SELECT a.proposed_at, 'action', format('#%s %s proposed by %s: %s', a.id, "
    "  a.kind, a.proposed_by, a.reason), 4 FROM keel.operator_actions a, mine "
    "  WHERE a.target_type = 'recon_break' AND a.targets @> mine.targets "
    "UNION ALL SELECT d.decided_at, 'action', format('#%s %sd by %s', a.id, d.decision, "
    "  d.decided_by), 5 FROM keel.approvals d JOIN keel.operator_actions a "
    "  ON a.id = d.action_id, mine "
    "  WHERE a.target_type = 'recon_break' AND a.targets @> mine.targets "
    "UNION ALL SELECT a.executed_at, 'action', format('#%s %s run by %s: %s', a.id, a.kind, "
    "  coalesce(a.executed_by, '?'), a.status), 6 FROM keel.operator_actions a, mine "
    "  WHERE a.target_type = 'recon_break' AND a.targets @> mine.targets "
    "    AND a.executed_at IS NOT NULL "
    "UNION ALL SELECT b.resolved_at, 'resolved', "
    "  CASE WHEN coalesce(b.resolution ->> 'kind', 'recon_run') = 'recon_run' "
    "       THEN 'resolved: a later run no longer finds it' "
    "       ELSE 'resolved by ' || (b.resolution ->> 'kind') END, 7 "
    "  FROM b WHERE b.resolved_at IS NOT NULL "
    "ORDER BY 1, 4, 3";

constexpr char RefundOfBreak[] =
    "SELECT r.status, r.currency, c.exponent, r.amount, 0, 0, r.created_at "
    "FROM keel.refunds r JOIN keel.currencies c ON c.code = r.currency WHERE r.public_id = ?";

QString dayKey(const QString &channel, const QDate &date)
{
    return channel + u'/' + date.toString(Qt::ISODate);
}

} // namespace

Result<QList<ReconRunRow>> ReconQuery::runs(QSqlDatabase db, int limit)
{
    QSqlQuery differences(db);
    if (Status done = runBound(differences, QLatin1String(OpenDifferences)); !done)
        return done.error();
    QHash<QString, QList<ReconMoney>> unexplained;
    while (differences.next())
        unexplained[dayKey(differences.value(0).toString(), differences.value(1).toDate())].append(
            {differences.value(2).toString(), differences.value(3).toInt(),
             differences.value(4).toLongLong()});
    QSqlQuery query(db);
    if (Status done = runBound(query, QLatin1String(LatestRuns), {limit}); !done)
        return done.error();
    QList<ReconRunRow> rows;
    while (query.next()) {
        ReconRunRow row{query.value(0).toLongLong(), query.value(1).toString(),
                        query.value(2).toDate(),     query.value(6).toLongLong(),
                        query.value(3).toInt(),      query.value(4).toInt(),
                        query.value(5).toDateTime(), {}};
        row.difference = unexplained.value(dayKey(row.channel, row.date));
        rows.append(row);
    }
    return rows;
}

Result<QList<ReconBreakRow>> ReconQuery::openBreaks(QSqlDatabase db, int limit,
                                                    const std::optional<ReconBreakRow> &after)
{
    QSqlQuery query(db);
    QVariantList bound;
    if (after)
        bound << after->date << after->channel << after->breakClass << after->kind
              << after->reference;
    bound << limit;
    const QString sql =
        QString::fromLatin1(OpenBreaks).arg(after ? QString::fromLatin1(AfterBreak) : QString());
    if (Status done = runBound(query, sql, bound); !done)
        return done.error();
    QList<ReconBreakRow> rows;
    while (query.next())
        rows.append(
            {query.value(0).toLongLong(),
             query.value(1).toString(),
             query.value(2).toDate(),
             query.value(3).toString(),
             query.value(4).toString(),
             query.value(5).toString(),
             {query.value(6).toString(), query.value(7).toInt(), query.value(8).toLongLong()},
             query.value(9).toLongLong(),
             query.value(10).toString(),
             query.value(11).toInt(),
             query.value(12).toLongLong(),
             query.value(13).toString(),
             query.value(14).toString(),
             query.value(15).toDateTime(),
             query.value(16).toBool()});
    return rows;
}

Result<QList<ReconAgeRow>> ReconQuery::ages(QSqlDatabase db)
{
    QSqlQuery query(db);
    if (Status done = runBound(query, QLatin1String(AgesOfOpenBreaks)); !done)
        return done.error();
    QList<ReconAgeRow> rows;
    while (query.next())
        rows.append({query.value(0).toString(),
                     {query.value(1).toLongLong(), query.value(2).toLongLong(),
                      query.value(3).toLongLong(), query.value(4).toLongLong()}});
    return rows;
}

Result<QList<ReconStatementRow>> ReconQuery::statements(QSqlDatabase db, int limit)
{
    QSqlQuery query(db);
    if (Status done = runBound(query, QLatin1String(Statements), {limit}); !done)
        return done.error();
    QList<ReconStatementRow> rows;
    while (query.next())
        rows.append({query.value(0).toLongLong(), query.value(1).toString(),
                     query.value(2).toString(), query.value(3).toInt(), query.value(4).toString(),
                     query.value(5).toString(), query.value(6).toDateTime(),
                     query.value(7).toDateTime(), query.value(8).toString()});
    return rows;
}

Result<ReconBreakDetail> ReconQuery::detail(QSqlDatabase db, const ReconBreakRow &found)
{
    ReconBreakDetail detail;
    QSqlQuery lines(db);
    if (Status done = runBound(lines, QLatin1String(LinesOfBreak),
                               {found.channel, found.kind, found.reference});
        !done)
        return done.error();
    while (lines.next())
        detail.lines.append(
            {lines.value(0).toLongLong(),
             lines.value(1).toString(),
             {lines.value(2).toString(), lines.value(3).toInt(), lines.value(4).toLongLong()},
             lines.value(5).toLongLong(),
             lines.value(6).toDateTime(),
             lines.value(7).toString()});
    QSqlQuery keel(db);
    const bool payment = found.kind == QLatin1String("payment");
    if (Status done = runBound(keel, QLatin1String(payment ? ChargeOfBreak : RefundOfBreak),
                               {found.reference});
        !done)
        return done.error();
    if (keel.next()) {
        detail.keelKnows = true;
        detail.keelState = keel.value(0).toString();
        detail.keelAmount = {keel.value(1).toString(), keel.value(2).toInt(),
                             keel.value(3).toLongLong()};
        detail.captured = keel.value(4).toLongLong();
        detail.refunded = keel.value(5).toLongLong();
        detail.createdAt = keel.value(6).toDateTime();
    }
    QSqlQuery timeline(db);
    if (Status done = runBound(timeline, QLatin1String(TimelineOfBreak),
                               {found.id, QString::number(found.id)});
        !done)
        return done.error();
    while (timeline.next())
        detail.timeline.append({timeline.value(0).toDateTime(), timeline.value(1).toString(),
                                timeline.value(2).toString()});
    return detail;
}

} // namespace keel
