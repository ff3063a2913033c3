#pragma once

#include "core/Result.h"
#include "core/channel/SimulatedChannel.h"
#include "core/runtime/GatewayRuntime.h"

class QCommandLineParser;

namespace keel {
class WechatPayCertificates;
}

namespace keel::cli {

// The options `keel gateway` and `keel dev` share: HTTP, idempotency and the
// simulated channel's behaviour.
void addGatewayOptions(QCommandLineParser &parser);
Result<GatewayOptions> gatewayOptions(const QCommandLineParser &parser);

// Which channel: --channel URL, or the in-process simulator shaped by the
// --sim-* options (`keel worker` moves money too).
void addChannelOptions(QCommandLineParser &parser);
// `wechatpayCertificates`: the ones the gateway's notification endpoint
// verifies with, for the WeChat Pay adapter to share (null: its own).
Result<ChannelFactory>
channelOption(const QCommandLineParser &parser,
              std::shared_ptr<WechatPayCertificates> wechatpayCertificates = {});

// --tls-cert and --tls-key: serve HTTPS instead of HTTP (`keel gateway`,
// `keel channel-sim`).
void addTlsServerOptions(QCommandLineParser &parser);
void applyTlsServerOptions(const QCommandLineParser &parser, HttpServerOptions &http);

// --<channel>-payment-code-lifetime (default 600 s): how long a payment
// request could still pay. Past it, an order the channel never saw is closed
// for good, so it may not be shorter than a minute (a payment code's own
// life) nor than the wait for one answer (--channel-timeout).
Result<int> paymentCodeLifetime(const QCommandLineParser &parser, const QString &option,
                                int timeoutMs);

// The --sim-* options alone (`keel channel-sim` is the simulator).
void addSimulatorOptions(QCommandLineParser &parser);
Result<SimulatedChannelConfig> simulatorConfig(const QCommandLineParser &parser);

} // namespace keel::cli
