#include "core/payment/ServiceFailure.h"

#include "core/Result.h"
#include "core/http/ApiResponse.h"

namespace keel {

ApiResponse serviceFailure(const Error &error)
{
    ApiError api;
    api.shouldRetry = true;
    // require_rows() raises this when a guarded statement found nothing to move.
    if (error.message.contains(QLatin1String("expected 1 row"))) {
        api.status = 409;
        api.type = QStringLiteral("idempotency_error");
        api.code = QStringLiteral("request_in_progress");
        api.message = QStringLiteral("another request is working on this payment; retry shortly");
        api.retryAfterSeconds = 1;
        return api.response();
    }
    qWarning("keel gateway: request failed: %s", qPrintable(error.message));
    api.status = 503;
    api.type = QStringLiteral("api_error");
    api.code = QStringLiteral("database_unavailable");
    api.message = QStringLiteral("keel could not reach its database; retry with the same "
                                 "Idempotency-Key");
    return api.response();
}

} // namespace keel
