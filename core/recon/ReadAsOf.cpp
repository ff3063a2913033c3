#include "core/recon/ReadAsOf.h"

#include <QStringBuilder>

namespace keel {
namespace {

// Named through the line: the statement has a channel too.
constexpr char LineColumns[] = "l.statement_id, l.channel, l.line_no, l.kind, l.reference, "
                               "l.channel_reference, l.amount, l.currency, l.fee, l.occurred_at, "
                               "l.reverses";

// Each table is named in a day query followed by a space and its alias (the
// channels' table by its one filter); inside a rewrite it is followed by a
// line break, so that no replacement finds its own.
constexpr const char *Rewritten[] = {"keel.recon_lines", "keel.ledger_transactions",
                                     "keel.recon_channels", "keel.charges", "keel.refunds"};

} // namespace

QByteArray readAsOf(const char *sql, qint64 runId)
{
    const QByteArray run =
        "(SELECT snapshot FROM keel.recon_runs\nWHERE id = " + QByteArray::number(runId) + ')';
    const auto seen = [&run](const char *xact) -> QByteArray {
        return "pg_visible_in_snapshot(" + QByteArray(xact) + ", " + run + ')';
    };
    const QByteArray columns(LineColumns);
    const QByteArray lines = "(SELECT " + columns +
                             " FROM keel.recon_lines\nl JOIN keel.recon_statements s ON s.id = "
                             "l.statement_id WHERE " +
                             seen("s.created_xact") + " UNION ALL SELECT " + columns +
                             " FROM keel.recon_withdrawn_lines l JOIN keel.recon_statements s "
                             "ON s.id = l.statement_id WHERE " +
                             seen("s.created_xact") + " AND s.withdrawn_xact IS NOT NULL AND NOT " +
                             seen("s.withdrawn_xact") + ") ";
    const QByteArray postings = "(SELECT * FROM keel.ledger_transactions\nWHERE written_in IS "
                                "NULL OR " +
                                seen("written_in") + ") ";
    const QByteArray channel = "(SELECT channel, time_zone, settlement_lag, fee_rate_ppm FROM "
                               "keel.recon_runs\nWHERE id = " +
                               QByteArray::number(runId) + ") rc WHERE channel = $1";
    // A record with the channel's id the run saw it carry (migration 0049):
    // the columns a day query reads of it, and no other. A record whose id
    // never changed through the triggers (written with them switched off, as
    // a superuser's bulk load does) has the id it has.
    const auto records = [&seen](const char *table, const char *kind) -> QByteArray {
        const QByteArray ofRecord = "FROM keel.record_channel_references h WHERE h.kind = '" +
                                    QByteArray(kind) + "' AND h.record_id = x.id";
        return "(SELECT x.id, x.public_id, x.channel, x.currency, x.created_at, CASE WHEN EXISTS "
               "(SELECT 1 " +
               ofRecord + ") THEN (SELECT h.channel_reference " + ofRecord +
               " AND (h.set_in IS NULL OR " + seen("h.set_in") +
               ") ORDER BY h.id DESC LIMIT 1) ELSE x.channel_reference END AS channel_reference "
               "FROM " +
               QByteArray(table) + "\nx) ";
    };
    QByteArray rewritten(sql);
    rewritten.replace("keel.charges ", records("keel.charges", "payment"));
    rewritten.replace("keel.refunds ", records("keel.refunds", "refund"));
    rewritten.replace("keel.recon_lines ", lines);
    rewritten.replace("keel.ledger_transactions ", postings);
    rewritten.replace("keel.recon_channels WHERE channel = $1", channel);
    for (const char *table : Rewritten)
        for (qsizetype at = rewritten.indexOf(table); at >= 0;
             at = rewritten.indexOf(table, at + 1))
            if (rewritten.mid(at + qsizetype(qstrlen(table)), 1) != "\n")
                return {};
    return rewritten;
}

} // namespace keel
