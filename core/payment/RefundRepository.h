#pragma once

#include "core/Result.h"
#include "core/payment/RefundRecord.h"

#include <QByteArrayList>

#include <optional>

namespace keel {

class LibpqConnection;

// The SQL behind refunds. Callers own the transaction.
class RefundRepository final {
public:
    explicit RefundRepository(LibpqConnection &connection) : m_connection(connection) {}

    Result<std::optional<RefundRecord>> findByPublicId(qint64 merchantId, const QString &refundId);
    Result<std::optional<RefundRecord>> findByRefundNumber(qint64 merchantId, qint64 chargeId,
                                                           const QString &outRefundNo);
    // Inserts a pending refund and fills in its id; empty if (charge,
    // out_refund_no) exists already.
    Result<std::optional<RefundRecord>> insert(RefundRecord refund);
    Status setStatus(RefundRecord &refund, const QString &status);
    // What the channel is known to have taken back of the charge: booked by
    // approved take-backs, or seen by a run and not booked yet (migration 0043).
    Result<qint64> withheldByChannel(qint64 chargeId);
    // Keeps the channel's own id for the refund (see PaymentRepository).
    Status keepChannelReference(const RefundRecord &refund, const QString &channelReference);

private:
    Result<std::optional<RefundRecord>> findWhere(qint64 merchantId, const QByteArray &condition,
                                                  const QByteArrayList &params);
    LibpqConnection &m_connection;
};

} // namespace keel
