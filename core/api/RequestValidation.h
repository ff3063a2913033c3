#pragma once

#include "core/Result.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>

namespace keel {

class CurrencyTable;
class RequestParams;
struct ChargeRequest;
struct RefundRequest;

// POST /v1/charges's parameters, validated: every error names its field.
Result<ChargeRequest> parseChargeRequest(const RequestParams &params,
                                         const CurrencyTable &currencies, qint64 merchantLimit);
// POST /v1/refunds's parameters, validated.
Result<RefundRequest> parseRefundRequest(const RequestParams &params);

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
