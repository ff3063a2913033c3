#pragma once

#include "core/money/Currency.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>
#include <utility>

namespace keel {

// A charge as the merchant asked for it, validated at the edge.
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
};

// The hash of what makes an order itself (amount, currency, source, capture),
// to tell a retry of an order from a different order under the same number.
QByteArray chargeTerms(const ChargeRequest &request);

} // namespace keel
