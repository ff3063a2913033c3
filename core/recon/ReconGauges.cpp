#include "core/recon/ReconGauges.h"

#include "core/db/LibpqConnection.h"
#include "core/metrics/Metrics.h"

namespace keel {
namespace {

constexpr char ByChannel[] =
    "SELECT channel, currency, sum(channel_amount - keel_amount) FROM keel.recon_breaks "
    "WHERE status IN ('pending', 'new', 'persisting') AND class NOT IN ('fee_variance', "
    "'currency_mismatch') "
    "GROUP BY 1, 2";

// A break names a charge or a refund; either tells the merchant.
constexpr char ByMerchant[] =
    "SELECT coalesce(c.merchant_id, rc.merchant_id)::text, b.currency, "
    "       sum(b.channel_amount - b.keel_amount) "
    "FROM keel.recon_breaks b "
    "LEFT JOIN keel.charges c ON b.kind = 'payment' AND c.public_id = b.reference "
    "LEFT JOIN keel.refunds r ON b.kind = 'refund' AND r.public_id = b.reference "
    "LEFT JOIN keel.charges rc ON rc.id = r.charge_id "
    "WHERE b.status IN ('pending', 'new', 'persisting') AND b.class NOT IN ('fee_variance', "
    "'currency_mismatch') "
    "  AND coalesce(c.merchant_id, rc.merchant_id) IS NOT NULL "
    "GROUP BY 1, 2";

constexpr char OpenByClass[] = "SELECT channel, class, count(*) FROM keel.recon_breaks "
                               "WHERE status IN ('pending', 'new', 'persisting') GROUP BY 1, 2";

Result<QMap<QByteArray, qint64>> labelled(LibpqConnection &session, const char *sql,
                                          const char *first, const char *second)
{
    Result<PgRows> rows = session.query(sql);
    if (!rows)
        return rows.error();
    QMap<QByteArray, qint64> values;
    for (int i = 0; i < rows->size(); ++i)
        values.insert(QByteArray(first) + "=\"" + rows->value(i, 0) + "\"," + second + "=\"" +
                          rows->value(i, 1) + '"',
                      rows->toInt64(i, 2));
    return values;
}

} // namespace

Status refreshReconGauges(LibpqConnection &session)
{
    // An acceptance past its date is an open break again, whether or not its
    // day is run again.
    if (Result<PgRows> ended = session.query("SELECT keel.recon_expire_acceptances()"); !ended)
        return ended.error();
    Result<QMap<QByteArray, qint64>> channels = labelled(session, ByChannel, "channel", "currency");
    Result<QMap<QByteArray, qint64>> merchants =
        labelled(session, ByMerchant, "merchant", "currency");
    Result<QMap<QByteArray, qint64>> breaks = labelled(session, OpenByClass, "channel", "class");
    for (const auto *read : {&channels, &merchants, &breaks})
        if (!*read)
            return read->error();
    Metrics::instance().setReconState({*channels, *merchants, *breaks});
    return {};
}

} // namespace keel
