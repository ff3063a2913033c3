#include "core/payment/RefundRepository.h"

#include "core/db/LibpqConnection.h"
#include "core/payment/Channel.h"
#include "core/payment/PaymentRepository.h"

namespace keel {

Result<std::optional<RefundRecord>> RefundRepository::findByPublicId(qint64 merchantId,
                                                                     const QString &refundId)
{
    return findWhere(merchantId, "r.public_id = $2", {refundId.toUtf8()});
}

Result<std::optional<RefundRecord>>
RefundRepository::findByRefundNumber(qint64 merchantId, qint64 chargeId, const QString &outRefundNo)
{
    return findWhere(merchantId, "r.charge_id = $2 AND r.out_refund_no = $3",
                     {QByteArray::number(chargeId), outRefundNo.toUtf8()});
}

Result<qint64> RefundRepository::withheldByChannel(qint64 chargeId)
{
    Result<PgRows> rows =
        m_connection.query("SELECT keel.charge_withheld($1)", {QByteArray::number(chargeId)});
    if (!rows)
        return rows.error();
    return rows->toInt64(0, 0);
}

Result<std::optional<RefundRecord>> RefundRepository::findWhere(qint64 merchantId,
                                                                const QByteArray &condition,
                                                                const QByteArrayList &params)
{
    QByteArrayList all{QByteArray::number(merchantId)};
    all += params;
    Result<PgRows> rows =
        m_connection.query("SELECT r.id, r.public_id, r.charge_id, c.public_id, r.out_refund_no, "
                           "r.amount, r.currency, "
                           "  r.status, r.reason, r.metadata::text, r.request_hash, "
                           "  extract(epoch FROM r.created_at)::bigint "
                           "FROM keel.refunds r JOIN keel.charges c ON c.id = r.charge_id "
                           "WHERE c.merchant_id = $1 AND " +
                               condition,
                           all);
    if (!rows)
        return rows.error();
    if (rows->size() == 0)
        return std::optional<RefundRecord>();
    RefundRecord refund;
    refund.id = rows->toInt64(0, 0);
    refund.publicId = rows->text(0, 1);
    refund.chargeId = rows->toInt64(0, 2);
    refund.chargePublicId = rows->text(0, 3);
    refund.outRefundNo = rows->text(0, 4);
    refund.amount = rows->toInt64(0, 5);
    refund.currency = rows->text(0, 6);
    refund.status = rows->text(0, 7);
    if (!rows->isNull(0, 8))
        refund.reason = rows->text(0, 8);
    refund.metadataJson = rows->value(0, 9);
    refund.terms = rows->bytea(0, 10);
    refund.createdEpoch = rows->toInt64(0, 11);
    return std::optional<RefundRecord>(refund);
}

Result<std::optional<RefundRecord>> RefundRepository::insert(RefundRecord refund)
{
    refund.publicId = PaymentRepository::newPublicId(QStringLiteral("re_"));
    Result<PgRows> rows = m_connection.query(
        "INSERT INTO keel.refunds (public_id, charge_id, out_refund_no, amount, currency, reason, "
        "  metadata, request_hash, channel) "
        "SELECT $1, $2, $3, $4, $5, $6, $7::jsonb, $8, c.channel FROM keel.charges c WHERE c.id = "
        "$2 "
        "ON CONFLICT (charge_id, out_refund_no) DO NOTHING "
        "RETURNING id, extract(epoch FROM created_at)::bigint",
        {refund.publicId.toUtf8(), QByteArray::number(refund.chargeId), refund.outRefundNo.toUtf8(),
         QByteArray::number(refund.amount), refund.currency.toUtf8(),
         refund.reason ? refund.reason->toUtf8() : QByteArray(), refund.metadataJson,
         LibpqConnection::byteaParam(refund.terms)});
    if (!rows)
        return rows.error();
    if (rows->size() == 0)
        return std::optional<RefundRecord>();
    refund.id = rows->toInt64(0, 0);
    refund.createdEpoch = rows->toInt64(0, 1);
    return std::optional<RefundRecord>(refund);
}

Status RefundRepository::setStatus(RefundRecord &refund, const QString &newStatus)
{
    Result<PgRows> rows =
        m_connection.query("UPDATE keel.refunds SET status = $2, updated_at = now() WHERE id = $1",
                           {QByteArray::number(refund.id), newStatus.toUtf8()});
    if (!rows)
        return rows.error();
    refund.status = newStatus;
    return {};
}

Status RefundRepository::keepChannelReference(const RefundRecord &refund,
                                              const QString &channelReference)
{
    if (!keepableChannelReference(channelReference))
        return {};
    Result<PgRows> rows =
        m_connection.query("UPDATE keel.refunds SET channel_reference = $2 WHERE id = $1",
                           {QByteArray::number(refund.id), channelReference.toUtf8()});
    return statusOf(rows);
}

} // namespace keel
