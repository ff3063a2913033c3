#pragma once

#include "core/http/ApiResponse.h"
#include "core/payment/GatewayContext.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace keel {

class PgSession;
class RequestParams;
struct ChannelResult;
struct ChargeRecord;
struct Error;
struct RefundRecord;

// POST /v1/refunds and GET /v1/refunds/{id}. Same two-commit shape as a
// charge: (1) key, refund (pending) and the charge's move to Refunding; the
// channel call; (2) the outcome, ledger reversal, outbox and stored response.
class RefundService final {
public:
    RefundService(const GatewayContext &context, PgSession &session);

    ApiResponse create(const Merchant &merchant, const RequestParams &params,
                       const std::optional<QByteArray> &idempotencyKey);
    ApiResponse retrieve(const Merchant &merchant, const QString &refundId);

    // Settles a refund left pending by a lost channel answer, asking the
    // channel first; used by the reconciler.
    Status resolveInFlight(qint64 merchantId, const QString &refundId);

private:
    ApiResponse execute(RefundRecord &refund, ChargeRecord &charge, const QByteArray &keyHash,
                        bool askFirst);
    ApiResponse resume(const Merchant &merchant, const QString &chargeId,
                       const QString &outRefundNo, const QByteArray &keyHash);
    ApiResponse failure(const Error &error);

    const GatewayContext &m_context;
    PgSession &m_session;
};

} // namespace keel
