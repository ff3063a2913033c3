#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QByteArrayList>
#include <QString>

#include <optional>

namespace keel {

class PgSession;

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

    QByteArray render() const; // Stripe's refund object

    static Result<std::optional<RefundRecord>> find(PgSession &session, qint64 merchantId,
                                                    const QByteArray &condition,
                                                    const QByteArrayList &params);
    // Inserts a pending refund; empty if (charge, out_refund_no) exists.
    Result<std::optional<RefundRecord>> insert(PgSession &session);
    Status setStatus(PgSession &session, const QString &status);
};

} // namespace keel
