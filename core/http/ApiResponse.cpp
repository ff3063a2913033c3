#include "core/http/ApiResponse.h"

#include "core/Result.h"
#include "core/http/JsonWriter.h"

namespace keel {

void ApiResponse::setHeader(const QByteArray &name, const QByteArray &value)
{
    for (auto &header : headers) {
        if (header.first.compare(name, Qt::CaseInsensitive) == 0) {
            header.second = value;
            return;
        }
    }
    headers.append({name, value});
}

QByteArray ApiResponse::header(const QByteArray &name) const
{
    for (const auto &header : headers)
        if (header.first.compare(name, Qt::CaseInsensitive) == 0)
            return header.second;
    return {};
}

ApiResponse jsonResponse(int status, QByteArray body)
{
    ApiResponse response;
    response.status = status;
    response.body = std::move(body);
    response.setHeader("Content-Type", "application/json");
    return response;
}

ApiResponse ApiError::response() const
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
    ApiResponse result = jsonResponse(status, json.take());
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
