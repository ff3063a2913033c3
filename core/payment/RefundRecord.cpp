#include "core/payment/RefundRecord.h"

#include "core/Result.h"
#include "core/db/PgSession.h"
#include "core/http/JsonWriter.h"
#include "core/payment/PaymentRepository.h"

namespace keel {

QByteArray RefundRecord::render() const
{
    JsonWriter json;
    json.beginObject()
        .field(QStringLiteral("id"), publicId)
        .field(QStringLiteral("object"), "refund")
        .field(QStringLiteral("amount"), amount)
        .field(QStringLiteral("charge"), chargePublicId)
        .field(QStringLiteral("created"), createdEpoch)
        .field(QStringLiteral("currency"), currency.toLower());
    json.key(QStringLiteral("metadata")).raw(metadataJson.isEmpty() ? "{}" : metadataJson);
    json.field(QStringLiteral("reason"), reason)
        .field(QStringLiteral("status"), status)
        .field(QStringLiteral("out_refund_no"), outRefundNo)
        .endObject();
    return json.take();
}

Result<std::optional<RefundRecord>> RefundRecord::find(PgSession &session, qint64 merchantId,
                                                       const QByteArray &condition,
                                                       const QByteArrayList &params)
{
    QByteArrayList all{QByteArray::number(merchantId)};
    all += params;
    Result<PgRows> rows =
        session.query("SELECT r.id, r.public_id, r.charge_id, c.public_id, r.out_refund_no, "
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

Result<std::optional<RefundRecord>> RefundRecord::insert(PgSession &session)
{
    publicId = PaymentRepository::newPublicId(QStringLiteral("re_"));
    Result<PgRows> rows = session.query(
        "INSERT INTO keel.refunds (public_id, charge_id, out_refund_no, amount, currency, reason, "
        "  metadata, request_hash) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8) "
        "ON CONFLICT (charge_id, out_refund_no) DO NOTHING "
        "RETURNING id, extract(epoch FROM created_at)::bigint",
        {publicId.toUtf8(), QByteArray::number(chargeId), outRefundNo.toUtf8(),
         QByteArray::number(amount), currency.toUtf8(), reason ? reason->toUtf8() : QByteArray(),
         metadataJson, PgSession::byteaParam(terms)});
    if (!rows)
        return rows.error();
    if (rows->size() == 0)
        return std::optional<RefundRecord>();
    id = rows->toInt64(0, 0);
    createdEpoch = rows->toInt64(0, 1);
    return std::optional<RefundRecord>(*this);
}

Status RefundRecord::setStatus(PgSession &session, const QString &newStatus)
{
    Result<PgRows> rows =
        session.query("UPDATE keel.refunds SET status = $2, updated_at = now() WHERE id = $1",
                      {QByteArray::number(id), newStatus.toUtf8()});
    if (!rows)
        return rows.error();
    status = newStatus;
    return {};
}

} // namespace keel
