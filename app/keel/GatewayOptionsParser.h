#pragma once

#include "core/Result.h"
#include "core/channel/SimulatedChannel.h"
#include "core/runtime/GatewayRuntime.h"

class QCommandLineParser;

namespace keel::cli {

// The options `keel gateway` and `keel dev` share: HTTP, idempotency and the
// simulated channel's behaviour.
void addGatewayOptions(QCommandLineParser &parser);
Result<GatewayOptions> gatewayOptions(const QCommandLineParser &parser);

// Which channel: --channel URL, or the in-process simulator shaped by the
// --sim-* options (`keel worker` moves money too).
void addChannelOptions(QCommandLineParser &parser);
Result<ChannelFactory> channelOption(const QCommandLineParser &parser);

// --tls-cert and --tls-key: serve HTTPS instead of HTTP (`keel gateway`,
// `keel channel-sim`).
void addTlsServerOptions(QCommandLineParser &parser);
void applyTlsServerOptions(const QCommandLineParser &parser, HttpServerOptions &http);

// The --sim-* options alone (`keel channel-sim` is the simulator).
void addSimulatorOptions(QCommandLineParser &parser);
Result<SimulatedChannelConfig> simulatorConfig(const QCommandLineParser &parser);

} // namespace keel::cli
