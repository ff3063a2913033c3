#include "core/recon/ReadAsOf.h"

#include <QRegularExpression>

namespace keel {
namespace {

// Named through the line: the statement has a channel too.
constexpr char LineColumns[] = "l.statement_id, l.channel, l.line_no, l.kind, l.reference, "
                               "l.channel_reference, l.amount, l.currency, l.fee, l.occurred_at, "
                               "l.reverses";

QByteArray seen(const QByteArray &xact, const QByteArray &snapshot)
{
    return "pg_visible_in_snapshot(" + xact + ", '" + snapshot + "'::pg_snapshot)";
}

} // namespace

QByteArray readAsOf(const char *sql, const QByteArray &snapshot)
{
    // Inlined rather than bound, so that the queries keep their parameters;
    // only digits, colons and commas pass.
    static const QRegularExpression snapshotText(
        QStringLiteral("^[0-9]{1,20}:[0-9]{1,20}:[0-9,]*$"));
    if (!snapshotText.match(QString::fromLatin1(snapshot)).hasMatch())
        return {};
    const QByteArray columns(LineColumns);
    const QByteArray lines =
        "(SELECT " + columns +
        " FROM keel.recon_lines\nl JOIN keel.recon_statements s ON s.id = "
        "l.statement_id WHERE " +
        seen("s.created_xact", snapshot) + " UNION ALL SELECT " + columns +
        " FROM keel.recon_withdrawn_lines l JOIN keel.recon_statements s ON s.id = "
        "l.statement_id WHERE " +
        seen("s.created_xact", snapshot) + " AND s.withdrawn_xact IS NOT NULL AND NOT " +
        seen("s.withdrawn_xact", snapshot) + ") ";
    const QByteArray postings = "(SELECT * FROM keel.ledger_transactions\nWHERE written_in IS NULL "
                                "OR " +
                                seen("written_in", snapshot) + ") ";
    // The tables inside the subqueries are followed by a line break, so
    // that neither replacement finds its own.
    QByteArray rewritten(sql);
    rewritten.replace("keel.recon_lines ", lines);
    rewritten.replace("keel.ledger_transactions ", postings);
    return rewritten;
}

} // namespace keel
