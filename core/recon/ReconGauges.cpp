#include "core/recon/ReconGauges.h"

#include "core/db/LibpqConnection.h"
#include "core/metrics/Metrics.h"

namespace keel {
namespace {

constexpr char ByChannel[] =
    "SELECT channel, currency, sum(channel_amount - keel_amount), "
    "       sum(abs(channel_amount - keel_amount)) FROM keel.recon_breaks "
    "WHERE status IN ('pending', 'new', 'persisting') AND class NOT IN ('fee_variance', "
    "'currency_mismatch') "
    "GROUP BY 1, 2";

// A break names a charge or a refund; either tells the merchant. A refund
// keel has no record of tells it by the charge its line names (migration
// 0052): the merchant who refunded in the channel's portal.
constexpr char ByMerchant[] =
    "SELECT coalesce(c.merchant_id, rc.merchant_id, lc.merchant_id)::text, b.currency, "
    "       sum(b.channel_amount - b.keel_amount), sum(abs(b.channel_amount - b.keel_amount)) "
    "FROM keel.recon_breaks b "
    "LEFT JOIN keel.charges c ON b.kind = 'payment' AND c.public_id = b.reference "
    "LEFT JOIN keel.refunds r ON b.kind = 'refund' AND r.public_id = b.reference "
    "LEFT JOIN keel.charges rc ON rc.id = r.charge_id "
    "LEFT JOIN LATERAL (SELECT min(n.merchant_id) AS merchant_id FROM keel.recon_lines l "
    "                   JOIN keel.charges n ON n.public_id = l.payment_reference "
    "                    AND n.channel = l.channel "
    "                   WHERE b.kind = 'refund' AND r.id IS NULL AND l.kind = 'refund' "
    "                     AND l.reference = b.reference AND l.channel = b.channel) lc ON true "
    "WHERE b.status IN ('pending', 'new', 'persisting') AND b.class NOT IN ('fee_variance', "
    "'currency_mismatch') "
    "  AND coalesce(c.merchant_id, rc.merchant_id, lc.merchant_id) IS NOT NULL "
    "GROUP BY 1, 2";

constexpr char OpenByClass[] = "SELECT channel, class, count(*) FROM keel.recon_breaks "
                               "WHERE status IN ('pending', 'new', 'persisting') GROUP BY 1, 2";

constexpr char SuspenseByDirection[] =
    "SELECT currency, direction, sum(amount) FROM keel.suspense_cases "
    "WHERE status IN ('open', 'in_review') GROUP BY 1, 2";

using Labelled = QMap<QByteArray, qint64>;

// The rows of `sql` as label sets `first` and `second` (its first two
// columns), one map per further column.
Result<QList<Labelled>> labelled(LibpqConnection &session, const char *sql, const char *first,
                                 const char *second)
{
    Result<PgRows> rows = session.query(sql);
    if (!rows)
        return rows.error();
    QList<Labelled> values(qMax(rows->columns() - 2, 0));
    for (int i = 0; i < rows->size(); ++i) {
        const QByteArray labels = QByteArray(first) + "=\"" + rows->value(i, 0) + "\"," + second +
                                  "=\"" + rows->value(i, 1) + '"';
        for (int column = 2; column < rows->columns(); ++column)
            values[column - 2].insert(labels, rows->toInt64(i, column));
    }
    return values;
}

} // namespace

Status refreshReconGauges(LibpqConnection &session)
{
    // An acceptance past its date is an open break again, whether or not its
    // day is run again.
    if (Result<PgRows> ended = session.query("SELECT keel.recon_expire_acceptances()"); !ended)
        return ended.error();
    Result<QList<Labelled>> channels = labelled(session, ByChannel, "channel", "currency");
    Result<QList<Labelled>> merchants = labelled(session, ByMerchant, "merchant", "currency");
    Result<QList<Labelled>> breaks = labelled(session, OpenByClass, "channel", "class");
    Result<QList<Labelled>> suspense =
        labelled(session, SuspenseByDirection, "currency", "direction");
    for (const auto *read : {&channels, &merchants, &breaks, &suspense})
        if (!*read)
            return read->error();
    Metrics::instance().setReconState({channels->value(0), merchants->value(0), breaks->value(0),
                                       channels->value(1), merchants->value(1),
                                       suspense->value(0)});
    return {};
}

} // namespace keel
