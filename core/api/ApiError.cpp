#include "core/api/ApiError.h"

#include "core/Result.h"
#include "core/json/JsonWriter.h"

namespace keel {

HttpResponse ApiError::response() const
{
    JsonWriter json;
    json.beginObject().key(QStringLiteral("error")).beginObject();
    json.field(QStringLiteral("type"), type);
    if (!code.isEmpty())
        json.field(QStringLiteral("code"), code);
    json.field(QStringLiteral("message"), message);
    if (!param.isEmpty())
        json.field(QStringLiteral("param"), param);
    if (!declineCode.isEmpty())
        json.field(QStringLiteral("decline_code"), declineCode);
    if (!chargeId.isEmpty())
        json.field(QStringLiteral("charge"), chargeId);
    json.endObject().endObject();
    HttpResponse result = jsonResponse(status, json.take());
    result.setHeader("Stripe-Should-Retry", shouldRetry ? "true" : "false");
    if (retryAfterSeconds > 0)
        result.setHeader("Retry-After", QByteArray::number(retryAfterSeconds));
    return result;
}

ApiError invalidRequest(const Error &error)
{
    ApiError api;
    api.status = 400;
    api.code = error.code.isEmpty() ? QStringLiteral("parameter_invalid") : error.code;
    api.message = error.message;
    api.param = error.field;
    return api;
}

} // namespace keel
