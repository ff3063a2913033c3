#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"
#include "core/http/HttpServer.h"
#include "core/idempotency/IdempotencyStore.h"
#include "core/payment/SimulatedChannel.h"

#include <memory>

namespace keel {

class GatewayApi;
class PgSession;

struct GatewayOptions {
    ConnectionSettings settings;
    HttpServerOptions http;
    IdempotencyPolicy idempotency;
    SimulatedChannelConfig channel;
    int reconcileGraceSeconds = 30; // in-flight payments older than this are reconciled
};

// A running gateway: the HTTP server on its worker threads, plus housekeeping
// (reconciling in-flight payments, sweeping expired idempotency keys) that the
// owner drives by calling maintain() every few seconds.
class GatewayRuntime final {
public:
    static Result<std::unique_ptr<GatewayRuntime>> start(GatewayOptions options);
    ~GatewayRuntime();
    Q_DISABLE_COPY_MOVE(GatewayRuntime)

    int port() const;
    QString url() const;
    void maintain();
    // Adds this process's per-minute counts to metrics_minute now (maintain()
    // does it every call).
    Status flushMetrics();
    void stop();

private:
    GatewayRuntime() = default;
    GatewayOptions m_options;
    std::unique_ptr<GatewayApi> m_api;
    std::unique_ptr<HttpServer> m_server;
    std::unique_ptr<PgSession> m_housekeeping;
};

} // namespace keel
