#pragma once

#include "core/http/ApiResponse.h"
#include "core/payment/GatewayContext.h"

namespace keel {

struct HttpRequest;

// The gateway's HTTP API, wire-compatible with Stripe's for charges and
// refunds: routing, API-key authentication, body parsing, and the services.
// Called on the server's worker threads; each uses its own database session.
class GatewayApi final {
public:
    explicit GatewayApi(GatewayContext context);

    ApiResponse handle(const HttpRequest &request);

    const GatewayContext &context() const { return m_context; }

private:
    ApiResponse route(const HttpRequest &request, int &endpoint);
    ApiResponse health();

    GatewayContext m_context;
};

} // namespace keel
