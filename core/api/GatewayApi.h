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

    HttpResponse route(const HttpRequest &request, int &endpoint);
    HttpResponse health();
    HttpResponse serve(const Route &route, const HttpRequest &request);
    HttpResponse dispatch(const Route &route, LibpqConnection &connection, const Merchant &merchant,
                          const RequestParams &params, const std::optional<QByteArray> &key);

    PaymentContext m_context;
    StripeReplies m_replies;
    SagaEndpoints m_sagas{m_context, m_replies};
    ChannelNotifyEndpoints m_channelNotices;
};

} // namespace keel
