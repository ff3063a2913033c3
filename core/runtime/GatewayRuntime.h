#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"
#include "core/idempotency/IdempotencyStore.h"
#include "core/net/HttpServer.h"
#include "core/payment/Channel.h"
#include "core/signing/ChannelKeys.h"

#include <memory>

namespace keel {

class FailureLog;
class GatewayApi;
class LibpqConnection;

struct GatewayOptions {
    ConnectionSettings settings;
    HttpServerOptions http;
    IdempotencyPolicy idempotency;
    ChannelFactory channel;         // required: which network the payments go to
    int reconcileGraceSeconds = 30; // in-flight payments older than this are reconciled
    // Verify the channels' notifications (/v1/channels/...); none configured
    // leaves those endpoints refusing.
    std::shared_ptr<const ChannelKeys> channelKeys;
};

// A running gateway: the HTTP server on its worker threads, plus housekeeping
// (reconciling in-flight payments, sweeping expired idempotency keys, folding
// state totals, flushing rollups) that the owner drives by calling maintain()
// every few seconds. A housekeeping task that fails is counted in /metrics and
// logged once when it starts failing, then with growing pauses while it keeps
// failing, and once when it recovers.
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
    void note(const char *task, const Status &status);

    GatewayOptions m_options;
    std::unique_ptr<GatewayApi> m_api;
    std::unique_ptr<HttpServer> m_server;
    std::unique_ptr<LibpqConnection> m_housekeeping;
    std::unique_ptr<FailureLog> m_failures;
};

} // namespace keel
