#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace keel {

// A refund as keel stores it.
struct RefundRecord {
    qint64 id = 0;
    QString publicId;
    qint64 chargeId = 0;
    QString chargePublicId;
    QString outRefundNo;
    qint64 amount = 0;
    QString currency;
    QString status = QStringLiteral("pending");
    std::optional<QString> reason;
    QByteArray metadataJson = "{}";
    QByteArray terms;
    qint64 createdEpoch = 0;
};

} // namespace keel
