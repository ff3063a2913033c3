#include "core/ops/ExportLog.h"

#include "core/db/BoundQuery.h"

#include <QSqlQuery>
#include <QVariant>

namespace keel {

Status ExportLog::record(QSqlDatabase db, const QString &what, const QString &filterText,
                         const ExportSummary &summary)
{
    QSqlQuery query(db);
    return runBound(query, QStringLiteral("SELECT keel.record_export(?, ?, ?, ?)"),
                    {what, filterText, summary.rows, summary.sha256});
}

Result<ExportSummary> ExportLog::approvalsCsv(QSqlDatabase db, QIODevice &out)
{
    CsvFile csv(out);
    if (Status said = csv.comment(QStringLiteral("keel proposals and approvals; filter: all"));
        !said)
        return said.error();
    const QStringList columns{QStringLiteral("id"),          QStringLiteral("kind"),
                              QStringLiteral("targets"),     QStringLiteral("status"),
                              QStringLiteral("proposed_by"), QStringLiteral("proposed_at"),
                              QStringLiteral("decided_by"),  QStringLiteral("decided_at"),
                              QStringLiteral("executed_by"), QStringLiteral("executed_at"),
                              QStringLiteral("reason"),      QStringLiteral("content_hash"),
                              QStringLiteral("outcome")};
    if (Status header = csv.row(columns); !header)
        return header.error();
    QSqlQuery query(db);
    // Times in ISO 8601 UTC, written by the server so no client zone enters.
    if (Status done = runBound(
            query,
            QStringLiteral(
                "SELECT a.id, a.kind, jsonb_array_length(a.targets), a.status, a.proposed_by, "
                "  to_char(a.proposed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), "
                "  coalesce(string_agg(d.decided_by || ' ' || d.decision, '; ' ORDER BY d.id), "
                "''), "
                "  coalesce(to_char(max(d.decided_at) AT TIME ZONE 'UTC', "
                "    'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), ''), coalesce(a.executed_by, ''), "
                "  coalesce(to_char(a.executed_at AT TIME ZONE 'UTC', "
                "    'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), ''), a.reason, "
                "  coalesce(a.content_hash, ''), coalesce(a.outcome::text, '') "
                "FROM keel.operator_actions a LEFT JOIN keel.approvals d ON d.action_id = a.id "
                "GROUP BY a.id ORDER BY a.id DESC"));
        !done)
        return done.error();
    while (query.next()) {
        QStringList fields;
        for (int column = 0; column < columns.size(); ++column)
            fields << query.value(column).toString();
        if (Status written = csv.row(fields); !written)
            return written.error();
    }
    return csv.summary();
}

} // namespace keel
