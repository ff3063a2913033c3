#include "core/http/GatewayApi.h"

#include "core/db/PgSession.h"
#include "core/db/ThreadSessions.h"
#include "core/http/HttpRequest.h"
#include "core/http/RequestParams.h"
#include "core/merchant/MerchantStore.h"
#include "core/metrics/Metrics.h"
#include "core/payment/ChargeService.h"
#include "core/payment/RefundService.h"

#include <QElapsedTimer>
#include <QRegularExpression>

namespace keel {
namespace {

ApiResponse unauthorized(const QString &message)
{
    ApiError error;
    error.status = 401;
    error.code = QStringLiteral("api_key_invalid");
    error.message = message;
    ApiResponse response = error.response();
    response.setHeader("WWW-Authenticate", "Bearer realm=\"keel\"");
    return response;
}

ApiResponse unavailable()
{
    ApiError error;
    error.status = 503;
    error.type = QStringLiteral("api_error");
    error.code = QStringLiteral("database_unavailable");
    error.message = QStringLiteral("keel cannot reach its database right now; retry shortly");
    error.shouldRetry = true;
    return error.response();
}

ApiResponse notFound(const QByteArray &method, const QByteArray &path)
{
    ApiError error;
    error.status = 404;
    error.code = QStringLiteral("resource_missing");
    error.message = QStringLiteral("unrecognized request URL (%1 %2)")
                        .arg(QString::fromLatin1(method), QString::fromUtf8(path));
    return error.response();
}

// "Bearer sk_..." as Stripe's libraries send it, or HTTP Basic with the key as
// the user name, as `curl -u sk_...:` sends it.
std::optional<QString> apiKeyFrom(const HttpRequest &request)
{
    const std::optional<QByteArray> header = request.header("authorization");
    if (!header)
        return std::nullopt;
    const QByteArray value = header->trimmed();
    if (value.startsWith("Bearer ") || value.startsWith("bearer "))
        return QString::fromLatin1(value.mid(7).trimmed());
    if (value.startsWith("Basic ") || value.startsWith("basic ")) {
        const QByteArray decoded = QByteArray::fromBase64(value.mid(6).trimmed());
        return QString::fromLatin1(
            decoded.left(decoded.indexOf(':') < 0 ? decoded.size() : decoded.indexOf(':')));
    }
    return QString();
}

} // namespace

GatewayApi::GatewayApi(GatewayContext context) : m_context(std::move(context)) {}

ApiResponse GatewayApi::handle(const HttpRequest &request)
{
    QElapsedTimer timer;
    timer.start();
    int endpoint = int(Metrics::Endpoint::Other);
    ApiResponse response = route(request, endpoint);
    Metrics::instance().observeRequest(Metrics::Endpoint(endpoint), response.status,
                                       timer.nsecsElapsed() / 1000);
    return response;
}

ApiResponse GatewayApi::health()
{
    Result<PgSession *> session = ThreadSessions::get(m_context.settings);
    if (!session || !(*session)->exec("SELECT 1"))
        return unavailable();
    return jsonResponse(200, "{\"status\":\"ok\"}");
}

ApiResponse GatewayApi::route(const HttpRequest &request, int &endpoint)
{
    const QByteArray &method = request.method;
    const QByteArray &path = request.path;
    if (path == "/healthz") {
        endpoint = int(Metrics::Endpoint::Health);
        return health();
    }
    if (path == "/metrics") {
        endpoint = int(Metrics::Endpoint::Metrics);
        ApiResponse response;
        response.body = Metrics::instance().prometheusText();
        response.setHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        return response;
    }

    static const QRegularExpression chargePath(
        QStringLiteral("^/v1/charges/(ch_[A-Za-z0-9]{1,64})$"));
    static const QRegularExpression capturePath(
        QStringLiteral("^/v1/charges/(ch_[A-Za-z0-9]{1,64})/capture$"));
    static const QRegularExpression refundPath(
        QStringLiteral("^/v1/refunds/(re_[A-Za-z0-9]{1,64})$"));
    const QString route = QString::fromUtf8(path);
    const QRegularExpressionMatch charge = chargePath.match(route);
    const QRegularExpressionMatch capture = capturePath.match(route);
    const QRegularExpressionMatch refund = refundPath.match(route);

    enum class Target { None, Charges, Charge, Capture, Refunds, Refund } target = Target::None;
    if (path == "/v1/charges")
        target = Target::Charges;
    else if (charge.hasMatch())
        target = Target::Charge;
    else if (capture.hasMatch())
        target = Target::Capture;
    else if (path == "/v1/refunds")
        target = Target::Refunds;
    else if (refund.hasMatch())
        target = Target::Refund;
    if (target == Target::None)
        return notFound(method, path);
    const bool post = method == "POST";
    const bool get = method == "GET";
    const bool postOnly =
        target == Target::Charges || target == Target::Capture || target == Target::Refunds;
    if ((postOnly && !post) || (!postOnly && !get)) {
        ApiError error;
        error.status = 405;
        error.code = QStringLiteral("method_not_allowed");
        error.message =
            QStringLiteral("%1 is not allowed on %2").arg(QString::fromLatin1(method), route);
        ApiResponse response = error.response();
        response.setHeader("Allow", postOnly ? "POST" : "GET");
        return response;
    }
    switch (target) {
    case Target::Charges:
        endpoint = int(Metrics::Endpoint::ChargesCreate);
        break;
    case Target::Charge:
        endpoint = int(Metrics::Endpoint::ChargesGet);
        break;
    case Target::Capture:
        endpoint = int(Metrics::Endpoint::ChargesCapture);
        break;
    case Target::Refunds:
        endpoint = int(Metrics::Endpoint::RefundsCreate);
        break;
    default:
        endpoint = int(Metrics::Endpoint::RefundsGet);
    }

    Result<PgSession *> session = ThreadSessions::get(m_context.settings);
    if (!session)
        return unavailable();
    const std::optional<QString> apiKey = apiKeyFrom(request);
    if (!apiKey)
        return unauthorized(
            QStringLiteral("no API key provided; send Authorization: Bearer sk_..."));
    Result<std::optional<Merchant>> merchant = MerchantStore(**session).authenticate(*apiKey);
    if (!merchant)
        return unavailable();
    if (!merchant->has_value())
        return unauthorized(QStringLiteral("invalid API key provided"));

    int keyCount = 0;
    const std::optional<QByteArray> idempotencyKey = request.header("idempotency-key", &keyCount);
    if (keyCount > 1) {
        ApiError error;
        error.code = QStringLiteral("idempotency_key_invalid");
        error.param = QStringLiteral("Idempotency-Key");
        error.message = QStringLiteral("send the Idempotency-Key header once");
        return error.response();
    }

    RequestParams params;
    if (post) {
        Result<RequestParams> parsed = RequestParams::fromBody(
            request.header("content-type").value_or(QByteArray()), request.body);
        if (!parsed) {
            ApiError error;
            error.code = QStringLiteral("parameter_invalid");
            error.message = parsed.error().message;
            return error.response();
        }
        params = *parsed;
    }

    switch (target) {
    case Target::Charges:
        return ChargeService(m_context, **session).create(**merchant, params, idempotencyKey);
    case Target::Charge:
        return ChargeService(m_context, **session).retrieve(**merchant, charge.captured(1));
    case Target::Capture:
        return ChargeService(m_context, **session)
            .capture(**merchant, capture.captured(1), params, idempotencyKey);
    case Target::Refunds:
        return RefundService(m_context, **session).create(**merchant, params, idempotencyKey);
    default:
        return RefundService(m_context, **session).retrieve(**merchant, refund.captured(1));
    }
}

} // namespace keel
