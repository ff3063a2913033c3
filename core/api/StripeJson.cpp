#include "core/api/StripeJson.h"

#include "core/json/JsonWriter.h"
#include "core/payment/ChargeRecord.h"
#include "core/payment/RefundRecord.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace keel {
namespace {

QString stripeStatus(PaymentState state)
{
    switch (state) {
    case PaymentState::Created:
    case PaymentState::Authorizing:
        return QStringLiteral("pending");
    case PaymentState::Failed:
    case PaymentState::Canceled:
        return QStringLiteral("failed");
    case PaymentState::Authorized:
    case PaymentState::Capturing:
    case PaymentState::Captured:
    case PaymentState::Refunding:
    case PaymentState::Refunded:
    case PaymentState::Reversed:
        break;
    }
    return QStringLiteral("succeeded");
}

bool paid(PaymentState state)
{
    switch (state) {
    case PaymentState::Authorized:
    case PaymentState::Capturing:
    case PaymentState::Captured:
    case PaymentState::Refunding:
    case PaymentState::Refunded:
        return true;
    case PaymentState::Created:
    case PaymentState::Authorizing:
    case PaymentState::Failed:
    case PaymentState::Reversed:
    case PaymentState::Canceled:
        break;
    }
    return false;
}

std::optional<QString> optionalText(const QJsonObject &object, const QString &key)
{
    if (!object.contains(key))
        return std::nullopt;
    return object.value(key).toString();
}

} // namespace

QByteArray renderCharge(const ChargeRecord &charge)
{
    const QJsonObject failure = QJsonDocument::fromJson(charge.failureJson).object();
    JsonWriter json;
    json.beginObject()
        .field(QStringLiteral("id"), charge.publicId)
        .field(QStringLiteral("object"), "charge")
        .field(QStringLiteral("amount"), charge.amount)
        .field(QStringLiteral("amount_captured"), charge.amountCaptured)
        .field(QStringLiteral("amount_refunded"), charge.amountRefunded)
        .field(QStringLiteral("captured"), charge.amountCaptured > 0)
        .field(QStringLiteral("created"), charge.createdEpoch)
        .field(QStringLiteral("currency"), charge.currency.toLower())
        .field(QStringLiteral("description"), charge.description)
        .field(QStringLiteral("failure_code"),
               optionalText(failure, QStringLiteral("failure_code")))
        .field(QStringLiteral("failure_message"),
               optionalText(failure, QStringLiteral("failure_message")))
        .field(QStringLiteral("livemode"), false);
    json.key(QStringLiteral("metadata"))
        .raw(charge.metadataJson.isEmpty() ? "{}" : charge.metadataJson);
    json.key(QStringLiteral("outcome"));
    if (charge.state == PaymentState::Failed && failure.contains(QStringLiteral("decline_code"))) {
        json.beginObject()
            .field(QStringLiteral("type"), "issuer_declined")
            .field(QStringLiteral("reason"),
                   failure.value(QStringLiteral("decline_code")).toString())
            .endObject();
    } else if (paid(charge.state)) {
        json.beginObject().field(QStringLiteral("type"), "authorized").endObject();
    } else {
        json.null();
    }
    json.field(QStringLiteral("paid"), paid(charge.state))
        .field(QStringLiteral("payment_method"), charge.source)
        .field(QStringLiteral("refunded"),
               charge.state == PaymentState::Refunded || charge.state == PaymentState::Reversed)
        .field(QStringLiteral("status"), stripeStatus(charge.state))
        .field(QStringLiteral("out_trade_no"), charge.outTradeNo)
        .field(QStringLiteral("keel_state"), stateName(charge.state))
        .endObject();
    return json.take();
}

QByteArray renderRefund(const RefundRecord &refund)
{
    JsonWriter json;
    json.beginObject()
        .field(QStringLiteral("id"), refund.publicId)
        .field(QStringLiteral("object"), "refund")
        .field(QStringLiteral("amount"), refund.amount)
        .field(QStringLiteral("charge"), refund.chargePublicId)
        .field(QStringLiteral("created"), refund.createdEpoch)
        .field(QStringLiteral("currency"), refund.currency.toLower());
    json.key(QStringLiteral("metadata"))
        .raw(refund.metadataJson.isEmpty() ? "{}" : refund.metadataJson);
    json.field(QStringLiteral("reason"), refund.reason)
        .field(QStringLiteral("status"), refund.status)
        .field(QStringLiteral("out_refund_no"), refund.outRefundNo)
        .endObject();
    return json.take();
}

} // namespace keel
