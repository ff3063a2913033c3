#pragma once

#include "core/Result.h"
#include "core/money/Currency.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>
#include <utility>

namespace keel {

class RequestParams;

// A validated POST /v1/charges.
struct ChargeRequest {
    qint64 amount = 0;
    Currency currency;
    QString source;
    bool capture = true;
    std::optional<QString> description;
    QList<std::pair<QString, QString>> metadata;
    std::optional<QString> outTradeNo; // keel's business order number, if the merchant sent one

    QByteArray fingerprint; // of the whole request, for Idempotency-Key reuse checks
    QByteArray terms;       // of what makes the order itself: amount, currency, source, capture

    static Result<ChargeRequest> parse(const RequestParams &params, const CurrencyTable &currencies,
                                       qint64 merchantLimit);
};

// Checks shared by the endpoints' validators.
namespace validate {
Status knownParameters(const RequestParams &params, const QStringList &allowed);
Result<bool> flag(const RequestParams &params, const QString &name, bool fallback);
Result<std::optional<QString>> text(const RequestParams &params, const QString &name,
                                    int maxLength);
Result<QList<std::pair<QString, QString>>> metadata(const RequestParams &params);
// Business reference numbers (out_trade_no, out_refund_no): 1-64 of [A-Za-z0-9_-.:].
Result<std::optional<QString>> reference(const RequestParams &params, const QString &name);
} // namespace validate

} // namespace keel
