#include "core/api/RequestValidation.h"

#include "core/api/RequestParams.h"
#include "core/idempotency/Fingerprint.h"
#include "core/payment/ChargeRequest.h"
#include "core/payment/RefundRequest.h"

#include <QRegularExpression>

namespace keel {
namespace validate {

Status knownParameters(const RequestParams &params, const QStringList &allowed)
{
    const QStringList unknown = params.unknownKeys(allowed);
    if (unknown.isEmpty())
        return {};
    return fieldError(unknown.constFirst(), QStringLiteral("parameter_unknown"),
                      QStringLiteral("unknown parameter: %1").arg(unknown.constFirst()));
}

Result<bool> flag(const RequestParams &params, const QString &name, bool fallback)
{
    const std::optional<QString> value = params.value(name);
    if (!value)
        return fallback;
    if (*value == QLatin1String("true"))
        return true;
    if (*value == QLatin1String("false"))
        return false;
    return fieldError(name, QStringLiteral("parameter_invalid_boolean"),
                      QStringLiteral("%1 must be true or false; got \"%2\"").arg(name, *value));
}

Result<std::optional<QString>> text(const RequestParams &params, const QString &name, int maxLength)
{
    const std::optional<QString> value = params.value(name);
    if (!value)
        return std::optional<QString>();
    if (value->size() > maxLength)
        return fieldError(
            name, QStringLiteral("parameter_invalid_string"),
            QStringLiteral("%1 must be at most %2 characters").arg(name).arg(maxLength));
    return value;
}

Result<QList<std::pair<QString, QString>>> metadata(const RequestParams &params)
{
    const QList<std::pair<QString, QString>> entries = params.group(QStringLiteral("metadata"));
    if (entries.size() > 50)
        return fieldError(QStringLiteral("metadata"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("metadata may hold at most 50 keys"));
    for (const auto &[key, value] : entries) {
        const QString field = QStringLiteral("metadata[%1]").arg(key);
        if (key.isEmpty() || key.size() > 40 || key.contains(u'[') || key.contains(u']'))
            return fieldError(
                field, QStringLiteral("parameter_invalid"),
                QStringLiteral("metadata keys must be 1-40 characters without brackets"));
        if (value.size() > 500)
            return fieldError(field, QStringLiteral("parameter_invalid_string"),
                              QStringLiteral("%1 must be at most 500 characters").arg(field));
    }
    return entries;
}

Result<std::optional<QString>> reference(const RequestParams &params, const QString &name)
{
    static const QRegularExpression allowed(QStringLiteral("^[A-Za-z0-9_.:-]{1,64}$"));
    const std::optional<QString> value = params.value(name);
    if (!value)
        return std::optional<QString>();
    if (!allowed.match(*value).hasMatch())
        return fieldError(
            name, QStringLiteral("parameter_invalid_string"),
            QStringLiteral("%1 must be 1-64 characters of A-Z a-z 0-9 _ - . :").arg(name));
    return value;
}

// A token id as the card networks' tokenisers issue them; anything else
// (quotes, spaces, markup) is refused here instead of travelling on to a
// channel, the ledger and the console.
Result<QString> source(const RequestParams &params)
{
    const std::optional<QString> source = params.value(QStringLiteral("source"));
    if (!source || source->isEmpty())
        return fieldError(QStringLiteral("source"), QStringLiteral("parameter_missing"),
                          QStringLiteral("source is required (a card token such as tok_visa)"));
    if (source->size() > 255)
        return fieldError(QStringLiteral("source"), QStringLiteral("parameter_invalid_string"),
                          QStringLiteral("source must be at most 255 characters"));
    static const QRegularExpression tokenId(QStringLiteral("^[A-Za-z0-9_-]+$"));
    if (!tokenId.match(*source).hasMatch())
        return fieldError(QStringLiteral("source"), QStringLiteral("parameter_invalid_string"),
                          QStringLiteral("source must be a token id such as tok_visa: letters, "
                                         "digits, '_' and '-'"));
    return *source;
}

} // namespace validate

Result<ChargeRequest> parseChargeRequest(const RequestParams &params,
                                         const CurrencyTable &currencies, qint64 merchantLimit)
{
    if (Status known = validate::knownParameters(
            params, {QStringLiteral("amount"), QStringLiteral("currency"), QStringLiteral("source"),
                     QStringLiteral("capture"), QStringLiteral("description"),
                     QStringLiteral("metadata["), QStringLiteral("out_trade_no")});
        !known)
        return known.error();

    ChargeRequest request;
    const std::optional<QString> currencyCode = params.value(QStringLiteral("currency"));
    if (!currencyCode)
        return fieldError(QStringLiteral("currency"), QStringLiteral("parameter_missing"),
                          QStringLiteral("currency is required (an ISO 4217 code such as usd)"));
    const std::optional<Currency> currency = currencies.find(*currencyCode);
    if (!currency)
        return fieldError(QStringLiteral("currency"), QStringLiteral("currency_invalid"),
                          QStringLiteral("currency \"%1\" is not one keel accepts; use an ISO 4217 "
                                         "code in upper or lower case, such as USD or usd")
                              .arg(*currencyCode));
    request.currency = *currency;

    const std::optional<QString> amountText = params.value(QStringLiteral("amount"));
    if (!amountText)
        return fieldError(QStringLiteral("amount"), QStringLiteral("parameter_missing"),
                          QStringLiteral("amount is required, in minor units (100 = 1.00 USD)"));
    Result<qint64> amount = parseMinorUnits(*amountText, request.currency, merchantLimit);
    if (!amount)
        return amount.error();
    request.amount = *amount;

    Result<QString> source = validate::source(params);
    if (!source)
        return source.error();
    request.source = *source;

    Result<bool> capture = validate::flag(params, QStringLiteral("capture"), true);
    if (!capture)
        return capture.error();
    request.capture = *capture;
    Result<std::optional<QString>> description =
        validate::text(params, QStringLiteral("description"), 1000);
    if (!description)
        return description.error();
    request.description = *description;
    Result<QList<std::pair<QString, QString>>> metadata = validate::metadata(params);
    if (!metadata)
        return metadata.error();
    request.metadata = *metadata;
    Result<std::optional<QString>> outTradeNo =
        validate::reference(params, QStringLiteral("out_trade_no"));
    if (!outTradeNo)
        return outTradeNo.error();
    request.outTradeNo = *outTradeNo;

    request.terms = chargeTerms(request);

    Fingerprint whole(QStringLiteral("POST /v1/charges"));
    whole.add(QStringLiteral("amount"), request.amount)
        .add(QStringLiteral("currency"), request.currency.code)
        .add(QStringLiteral("source"), request.source)
        .add(QStringLiteral("capture"), request.capture);
    if (request.description)
        whole.add(QStringLiteral("description"), *request.description);
    if (request.outTradeNo)
        whole.add(QStringLiteral("out_trade_no"), *request.outTradeNo);
    for (const auto &[key, value] : std::as_const(request.metadata))
        whole.add(QStringLiteral("metadata[%1]").arg(key), value);
    request.fingerprint = whole.hash();
    return request;
}

Result<RefundRequest> parseRefundRequest(const RequestParams &params)
{
    if (Status known = validate::knownParameters(
            params, {QStringLiteral("charge"), QStringLiteral("amount"), QStringLiteral("reason"),
                     QStringLiteral("metadata["), QStringLiteral("out_refund_no")});
        !known)
        return known.error();
    RefundRequest request;
    request.chargeId = params.valueOr(QStringLiteral("charge"));
    if (request.chargeId.isEmpty())
        return fieldError(
            QStringLiteral("charge"), QStringLiteral("parameter_missing"),
            QStringLiteral("charge is required: the id (ch_...) of the charge to refund"));
    request.reason = params.valueOr(QStringLiteral("reason"));
    if (!request.reason.isEmpty() && request.reason != QLatin1String("duplicate") &&
        request.reason != QLatin1String("fraudulent") &&
        request.reason != QLatin1String("requested_by_customer"))
        return fieldError(
            QStringLiteral("reason"), QStringLiteral("parameter_invalid"),
            QStringLiteral("reason must be duplicate, fraudulent or requested_by_customer"));
    Result<QList<std::pair<QString, QString>>> metadata = validate::metadata(params);
    if (!metadata)
        return metadata.error();
    request.metadata = *metadata;
    Result<std::optional<QString>> outRefundNo =
        validate::reference(params, QStringLiteral("out_refund_no"));
    if (!outRefundNo)
        return outRefundNo.error();
    request.outRefundNo = *outRefundNo;
    request.amountText = params.value(QStringLiteral("amount"));

    Fingerprint whole(QStringLiteral("POST /v1/refunds"));
    whole.add(QStringLiteral("charge"), request.chargeId)
        .add(QStringLiteral("amount"), request.amountText.value_or(QStringLiteral("(remaining)")))
        .add(QStringLiteral("reason"), request.reason);
    if (request.outRefundNo)
        whole.add(QStringLiteral("out_refund_no"), *request.outRefundNo);
    for (const auto &[key, value] : std::as_const(request.metadata))
        whole.add(QStringLiteral("metadata[%1]").arg(key), value);
    request.fingerprint = whole.hash();
    return request;
}

} // namespace keel
