#pragma once

#include "core/payment/PaymentState.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace keel {

// A charge as the gateway reads and renders it.
struct ChargeRecord {
    qint64 id = 0;
    QString publicId;
    qint64 merchantId = 0;
    QString outTradeNo;
    qint64 amount = 0;
    QString currency;
    QString source;
    std::optional<QString> description;
    QByteArray metadataJson = "{}";
    bool capture = true;
    qint64 amountCaptured = 0;
    qint64 amountRefunded = 0;
    QByteArray terms;
    qint64 createdEpoch = 0;
    PaymentState state = PaymentState::Created;
    int version = 0;
    QByteArray failureJson; // payload of the transition into Failed, if any
};

} // namespace keel
