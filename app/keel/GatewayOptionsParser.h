#pragma once

#include "core/Result.h"
#include "core/runtime/GatewayRuntime.h"

class QCommandLineParser;

namespace keel::cli {

// The options `keel gateway` and `keel dev` share: HTTP, idempotency and the
// simulated channel's behaviour.
void addGatewayOptions(QCommandLineParser &parser);
Result<GatewayOptions> gatewayOptions(const QCommandLineParser &parser);

// The simulated channel's options alone (`keel worker` moves money too).
void addChannelOptions(QCommandLineParser &parser);
Result<ChannelFactory> channelOption(const QCommandLineParser &parser);

} // namespace keel::cli
