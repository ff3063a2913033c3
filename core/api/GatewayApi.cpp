#include "core/api/GatewayApi.h"

#include "core/api/ApiError.h"
#include "core/api/RequestParams.h"
#include "core/api/RequestValidation.h"
#include "core/db/LibpqConnection.h"
#include "core/db/ThreadConnections.h"
#include "core/idempotency/IdempotencyKey.h"
#include "core/merchant/MerchantStore.h"
#include "core/metrics/Metrics.h"
#include "core/net/HttpRequest.h"
#include "core/payment/ChargeRequest.h"
#include "core/payment/ChargeService.h"
#include "core/payment/RefundRequest.h"
#include "core/payment/RefundService.h"

#include <QElapsedTimer>
#include <QRegularExpression>

namespace keel {
namespace {

HttpResponse unauthorized(const QString &message)
{
    ApiError error;
    error.status = 401;
    error.code = QStringLiteral("api_key_invalid");
    error.message = message;
    HttpResponse response = error.response();
    response.setHeader("WWW-Authenticate", "Bearer realm=\"keel\"");
    return response;
}

HttpResponse unavailable()
{
    ApiError error;
    error.status = 503;
    error.type = QStringLiteral("api_error");
    error.code = QStringLiteral("database_unavailable");
    error.message = QStringLiteral("keel cannot reach its database right now; retry shortly");
    error.shouldRetry = true;
    error.retryAfterSeconds = 1;
    return error.response();
}

HttpResponse badRequest(const QString &code, const QString &param, const QString &message)
{
    ApiError error;
    error.code = code;
    error.param = param;
    error.message = message;
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

Metrics::Endpoint endpointOf(int target)
{
    static constexpr Metrics::Endpoint endpoints[] = {
        Metrics::Endpoint::Other,         Metrics::Endpoint::ChargesCreate,
        Metrics::Endpoint::ChargesGet,    Metrics::Endpoint::ChargesCapture,
        Metrics::Endpoint::RefundsCreate, Metrics::Endpoint::RefundsGet,
        Metrics::Endpoint::Other,         Metrics::Endpoint::Other,
        Metrics::Endpoint::Other,         Metrics::Endpoint::Other};
    return endpoints[target];
}

} // namespace

GatewayApi::GatewayApi(PaymentContext context, std::shared_ptr<const ChannelKeys> channelKeys)
    : m_context(std::move(context)), m_channelNotices(m_context, m_replies, std::move(channelKeys))
{}

HttpResponse GatewayApi::handle(const HttpRequest &request)
{
    QElapsedTimer timer;
    timer.start();
    int endpoint = int(Metrics::Endpoint::Other);
    HttpResponse response = routeByPath(request, endpoint);
    Metrics::instance().observeRequest(Metrics::Endpoint(endpoint), response.status,
                                       timer.nsecsElapsed() / 1000);
    return response;
}

HttpResponse GatewayApi::refuse(HttpRefusal refusal)
{
    ApiError error;
    switch (refusal) {
    case HttpRefusal::BodyTooLarge:
        error.status = 413;
        error.code = QStringLiteral("request_too_large");
        error.message = QStringLiteral("the request body is larger than keel accepts");
        break;
    case HttpRefusal::HeadersTooLarge:
        error.status = 431;
        error.code = QStringLiteral("headers_too_large");
        error.message = QStringLiteral("the request headers are larger than keel accepts");
        break;
    case HttpRefusal::Malformed:
        error.code = QStringLiteral("malformed_request");
        error.message = QStringLiteral("the HTTP request could not be parsed");
        break;
    }
    return error.response();
}

HttpResponse GatewayApi::health()
{
    Result<LibpqConnection *> connection = ThreadConnections::get(m_context.settings);
    if (!connection || !(*connection)->exec("SELECT 1"))
        return unavailable();
    return jsonResponse(200, "{\"status\":\"ok\"}");
}

GatewayApi::Route GatewayApi::match(const QByteArray &path)
{
    static const QRegularExpression chargePath(
        QStringLiteral("^/v1/charges/(ch_[A-Za-z0-9]{1,64})(/capture)?$"));
    static const QRegularExpression refundPath(
        QStringLiteral("^/v1/refunds/(re_[A-Za-z0-9]{1,64})$"));
    static const QRegularExpression sagaPath(
        QStringLiteral("^/v1/sagas/(saga_[A-Za-z0-9]{1,64})$"));
    static const QRegularExpression tccPath(QStringLiteral("^/v1/tcc/(saga_[A-Za-z0-9]{1,64})$"));
    if (path == "/v1/sagas")
        return {Target::Sagas, {}};
    if (path == "/v1/tcc")
        return {Target::Tcc, {}};
    if (const QRegularExpressionMatch tcc = tccPath.match(QString::fromUtf8(path)); tcc.hasMatch())
        return {Target::TccOne, tcc.captured(1)};
    if (const QRegularExpressionMatch saga = sagaPath.match(QString::fromUtf8(path));
        saga.hasMatch())
        return {Target::Saga, saga.captured(1)};
    if (path == "/v1/charges")
        return {Target::Charges, {}};
    if (path == "/v1/refunds")
        return {Target::Refunds, {}};
    const QString text = QString::fromUtf8(path);
    if (const QRegularExpressionMatch charge = chargePath.match(text); charge.hasMatch())
        return {charge.hasCaptured(2) ? Target::Capture : Target::Charge, charge.captured(1)};
    if (const QRegularExpressionMatch refund = refundPath.match(text); refund.hasMatch())
        return {Target::Refund, refund.captured(1)};
    return {};
}

HttpResponse GatewayApi::routeByPath(const HttpRequest &request, int &endpoint)
{
    if (request.path == "/healthz") {
        endpoint = int(Metrics::Endpoint::Health);
        return health();
    }
    if (request.path == "/metrics") {
        endpoint = int(Metrics::Endpoint::Metrics);
        HttpResponse response;
        response.body = Metrics::instance().prometheusText();
        response.setHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
        return response;
    }
    if (ChannelNotifyEndpoints::handles(request.path)) {
        // Signed by the channel, not authenticated by an API key.
        if (request.method != "POST") {
            ApiError error;
            error.status = 405;
            error.code = QStringLiteral("method_not_allowed");
            error.message = QStringLiteral("channels POST their notifications");
            HttpResponse response = error.response();
            response.setHeader("Allow", "POST");
            return response;
        }
        return m_channelNotices.handle(request);
    }
    const Route route = match(request.path);
    if (route.target == Target::None) {
        ApiError error;
        error.status = 404;
        error.code = QStringLiteral("resource_missing");
        error.message =
            QStringLiteral("unrecognized request URL (%1 %2)")
                .arg(QString::fromLatin1(request.method), QString::fromUtf8(request.path));
        return error.response();
    }
    const bool postOnly = route.target == Target::Charges || route.target == Target::Capture ||
                          route.target == Target::Refunds || route.target == Target::Tcc;
    const bool either = route.target == Target::Sagas;
    if (request.method != (postOnly ? "POST" : "GET") && !(either && request.method == "POST")) {
        ApiError error;
        error.status = 405;
        error.code = QStringLiteral("method_not_allowed");
        error.message =
            QStringLiteral("%1 is not allowed on %2")
                .arg(QString::fromLatin1(request.method), QString::fromUtf8(request.path));
        HttpResponse response = error.response();
        response.setHeader("Allow", either ? "GET, POST" : postOnly ? "POST" : "GET");
        return response;
    }
    endpoint = int(endpointOf(int(route.target)));
    return authenticateMerchant(route, request);
}

HttpResponse GatewayApi::authenticateMerchant(const Route &route, const HttpRequest &request)
{
    Result<LibpqConnection *> connection = ThreadConnections::get(m_context.settings);
    if (!connection)
        return unavailable();
    const std::optional<QString> apiKey = apiKeyFrom(request);
    if (!apiKey)
        return unauthorized(
            QStringLiteral("no API key provided; send Authorization: Bearer sk_..."));
    Result<std::optional<Merchant>> merchant = MerchantStore(**connection).authenticate(*apiKey);
    if (!merchant)
        return unavailable();
    if (!merchant->has_value())
        return unauthorized(QStringLiteral("invalid API key provided"));

    int keyCount = 0;
    const std::optional<QByteArray> key = request.header("idempotency-key", &keyCount);
    if (keyCount > 1)
        return badRequest(QStringLiteral("idempotency_key_invalid"),
                          QStringLiteral("Idempotency-Key"),
                          QStringLiteral("send the Idempotency-Key header once"));
    if (route.target == Target::Sagas)
        return request.method == "POST" ? m_sagas.create(**connection, **merchant, request, key)
                                        : m_sagas.list(**connection, **merchant, request);
    if (route.target == Target::Tcc)
        return m_sagas.create(**connection, **merchant, request, key, true);
    if (route.target == Target::Saga || route.target == Target::TccOne)
        return m_sagas.retrieve(**connection, **merchant, route.id);
    RequestParams params;
    if (request.method == "POST") {
        Result<RequestParams> parsed = RequestParams::fromBody(
            request.header("content-type").value_or(QByteArray()), request.body);
        if (!parsed)
            return badRequest(QStringLiteral("parameter_invalid"), {}, parsed.error().message);
        params = *parsed;
    }
    return callPaymentService(route, **connection, **merchant, params, key);
}

HttpResponse GatewayApi::callPaymentService(const Route &route, LibpqConnection &connection,
                                            const Merchant &merchant, const RequestParams &params,
                                            const std::optional<QByteArray> &key)
{
    // Endpoints that create something require a key; capture takes one if sent.
    Result<IdempotencyKey> idempotencyKey =
        IdempotencyKey::parse(key.value_or(QByteArray()), key.has_value());
    const bool keyRequired = route.target == Target::Charges || route.target == Target::Refunds;
    if (!idempotencyKey && (keyRequired || (key && route.target == Target::Capture)))
        return invalidRequest(idempotencyKey.error()).response();
    ChargeService charges(m_context, connection, m_replies);
    switch (route.target) {
    case Target::Charges: {
        Result<ChargeRequest> request =
            parseChargeRequest(params, m_context.currencies, merchant.maxChargeAmount);
        if (!request)
            return invalidRequest(request.error()).response();
        return m_replies.respond(charges.create(merchant, *request, *idempotencyKey));
    }
    case Target::Capture: {
        if (Status known = validate::knownParameters(params, {}); !known)
            return invalidRequest(known.error()).response();
        return m_replies.respond(
            charges.capture(merchant, route.id,
                            key ? std::optional<IdempotencyKey>(*idempotencyKey) : std::nullopt));
    }
    case Target::Refunds: {
        Result<RefundRequest> request = parseRefundRequest(params);
        if (!request)
            return invalidRequest(request.error()).response();
        return m_replies.respond(RefundService(m_context, connection, m_replies)
                                     .create(merchant, *request, *idempotencyKey));
    }
    case Target::Charge:
        return m_replies.respond(charges.retrieve(merchant, route.id));
    case Target::Refund:
        return m_replies.respond(
            RefundService(m_context, connection, m_replies).retrieve(merchant, route.id));
    case Target::None:
    case Target::Sagas:
    case Target::Saga:
    case Target::Tcc:
    case Target::TccOne:
        break; // answered before this stage
    }
    Q_ASSERT_X(false, "GatewayApi", "a route without a payment service reached stage 3");
    ApiError error;
    error.status = 404;
    error.code = QStringLiteral("resource_missing");
    error.message = QStringLiteral("unrecognized request URL");
    return error.response();
}

} // namespace keel
