#pragma once

#include "core/api/ChannelNotifyEndpoints.h"
#include "core/api/SagaEndpoints.h"
#include "core/api/StripeReplies.h"
#include "core/net/HttpServer.h"
#include "core/payment/PaymentContext.h"

#include <optional>

namespace keel {

class LibpqConnection;
class RequestParams;
struct HttpRequest;

// The gateway's HTTP API, wire-compatible with Stripe's for charges and
// refunds, plus sagas and the channels' notifications: routing, API-key authentication, body
// parsing, and rendering what the payment services say. Called on the server's worker threads; each
// uses its own database connection.
class GatewayApi final : public HttpHandler {
public:
    explicit GatewayApi(PaymentContext context,
                        std::shared_ptr<const ChannelKeys> channelKeys = {});

    HttpResponse handle(const HttpRequest &request) override;
    HttpResponse refuse(HttpRefusal refusal) override;

    const PaymentContext &context() const { return m_context; }
    const StripeReplies &replies() const { return m_replies; }

private:
    enum class Target { None, Charges, Charge, Capture, Refunds, Refund, Sagas, Saga, Tcc, TccOne };
    struct Route {
        Target target = Target::None;
        QString id; // ch_..., re_... or saga_... for the routes that name one
    };
    static Route match(const QByteArray &path);

    // A request passes three stages, each one function:
    // 1. by path and method: health, metrics, channel notices, or a Route;
    HttpResponse routeByPath(const HttpRequest &request, int &endpoint);
    HttpResponse health();
    // 2. the merchant's API key, the Idempotency-Key header and the body;
    HttpResponse authenticateMerchant(const Route &route, const HttpRequest &request);
    // 3. the payment service that answers the route.
    HttpResponse callPaymentService(const Route &route, LibpqConnection &connection,
                                    const Merchant &merchant, const RequestParams &params,
                                    const std::optional<QByteArray> &key);

    PaymentContext m_context;
    StripeReplies m_replies;
    SagaEndpoints m_sagas{m_context, m_replies};
    ChannelNotifyEndpoints m_channelNotices;
};

} // namespace keel
