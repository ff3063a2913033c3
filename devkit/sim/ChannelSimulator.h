#pragma once

#include "core/Result.h"
#include "core/channel/SimulatedChannel.h"
#include "core/db/ConnectionSettings.h"
#include "core/net/HttpServer.h"
#include "devkit/sim/AlipayGatewaySim.h"
#include "devkit/sim/AlipayNotifier.h"
#include "devkit/sim/WechatPayGatewaySim.h"

#include <memory>
#include <optional>

namespace keel {

class CurrencyTable;

struct ChannelSimulatorOptions {
    ConnectionSettings settings;      // where the simulated network keeps what it processed
    SimulatedChannelConfig behaviour; // declines, errors, lost answers, latency
    HttpServerOptions http;
    // Where to send each authorization's result, Alipay style; none: no
    // asynchronous results.
    std::optional<AlipayNotifierOptions> notifier;
    // Also speak Alipay's OpenAPI at POST /gateway.do (AlipayGatewaySim).
    std::optional<AlipayGatewayOptions> alipayGateway;
    // Also speak WeChat Pay API v3 under /v3/ (WechatPayGatewaySim).
    std::optional<WechatPayGatewayOptions> wechatpayGateway;
};

// `keel channel-sim`: the simulated acquirer as its own HTTP server
// (ChannelWire), so a gateway reaches it over the network, with timeouts, and
// a test can kill it. A lost answer is a connection closed after the
// operation was processed, exactly what a real timeout looks like.
class ChannelSimulator final : public HttpHandler {
public:
    static Result<std::unique_ptr<ChannelSimulator>> start(ChannelSimulatorOptions options);
    ~ChannelSimulator() override;

    QString url() const;
    void stop();

    HttpResponse handle(const HttpRequest &request) override;
    HttpResponse refuse(HttpRefusal refusal) override;

private:
    explicit ChannelSimulator(ChannelSimulatorOptions options);
    HttpResponse execute(const HttpRequest &request);
    HttpResponse query(const QByteArray &path);
    HttpResponse close(const QByteArray &path);
    void announce(const ChannelRequest &request, const ChannelResult &result);

    ChannelSimulatorOptions m_options;
    SimulatedChannel m_channel;
    std::unique_ptr<CurrencyTable> m_currencies;
    std::unique_ptr<AlipayNotifier> m_notifier;
    std::unique_ptr<AlipayGatewaySim> m_alipayGateway;
    std::unique_ptr<WechatPayGatewaySim> m_wechatpayGateway;
    std::unique_ptr<HttpServer> m_server;
};

} // namespace keel
