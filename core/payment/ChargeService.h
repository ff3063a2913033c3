#pragma once

#include "core/http/ApiResponse.h"
#include "core/payment/ChargeRecord.h"
#include "core/payment/GatewayContext.h"

#include <QByteArray>
#include <QString>

#include <optional>

namespace keel {

class PgSession;
class RequestParams;
struct ChannelResult;
struct ChargeRequest;
struct Error;

// POST /v1/charges, GET /v1/charges/{id}, POST /v1/charges/{id}/capture.
//
// A new charge costs two commits: (1) the Idempotency-Key reservation, the
// charge, its state (Authorizing) and the submit event; then the channel call
// outside any transaction; then (2) the outcome's transitions, ledger postings,
// outbox event and the stored response, together, so the stored response
// always matches what was committed.
class ChargeService final {
public:
    ChargeService(const GatewayContext &context, PgSession &session);

    // `idempotencyKey` is the raw header value, or nullopt if it was absent.
    ApiResponse create(const Merchant &merchant, const RequestParams &params,
                       const std::optional<QByteArray> &idempotencyKey);
    ApiResponse capture(const Merchant &merchant, const QString &chargeId,
                        const RequestParams &params,
                        const std::optional<QByteArray> &idempotencyKey);
    ApiResponse retrieve(const Merchant &merchant, const QString &chargeId);

    // Drives a charge left in Authorizing or Capturing by a lost answer to a
    // final state by asking the channel; used by the reconciler.
    Status resolveInFlight(ChargeRecord &charge);

private:
    ApiResponse resumeCreate(const Merchant &merchant, const QString &outTradeNo,
                             const QByteArray &keyHash);
    ApiResponse authorize(ChargeRecord &charge, const QByteArray &keyHash, bool askFirst);
    ApiResponse finishAuthorization(ChargeRecord &charge, const ChannelResult &result,
                                    const QByteArray &keyHash);
    ApiResponse runCapture(ChargeRecord &charge, const QByteArray &keyHash, bool askFirst);
    ApiResponse finishCapture(ChargeRecord &charge, const ChannelResult &result,
                              const QByteArray &keyHash);
    ApiResponse completeWith(const QByteArray &keyHash, ApiResponse response,
                             const QString &resourceId = {});
    // Applies a channel outcome and, if a key is given, stores the response,
    // in one pipelined transaction.
    Result<ApiResponse> settle(ChargeRecord &charge, const ChannelResult &result,
                               const QByteArray &keyHash, bool capturing);

    // Applies a channel outcome inside an open transaction; returns the
    // response to store and send.
    Result<ApiResponse> applyAuthorization(ChargeRecord &charge, const ChannelResult &result);
    Result<ApiResponse> applyCapture(ChargeRecord &charge, const ChannelResult &result);

    ApiResponse failure(const Error &error);
    static ApiResponse chargeResponse(const ChargeRecord &charge, int status = 200);
    static ApiResponse notFound(const QString &chargeId);
    static QString derivedOrderNumber(const QByteArray &keyHash);

    const GatewayContext &m_context;
    PgSession &m_session;
};

} // namespace keel
