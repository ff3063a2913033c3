#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>
#include <utility>

namespace keel {

// A refund as the merchant asked for it, validated at the edge. The amount is
// checked against the charge's currency once the charge is known.
struct RefundRequest {
    QString chargeId;                  // ch_...
    std::optional<QString> amountText; // minor units; absent: what is left to refund
    QString reason;                    // empty, duplicate, fraudulent or requested_by_customer
    QList<std::pair<QString, QString>> metadata;
    std::optional<QString> outRefundNo; // keel's business refund number, if the merchant sent one

    QByteArray fingerprint; // of the whole request, for Idempotency-Key reuse checks
};

} // namespace keel
