#pragma once

#include "core/Result.h"

#include <memory>

class QCommandLineParser;

namespace keel {
class MetricsEndpoint;
}

namespace keel::cli {

// --metrics HOST:PORT for the processes that serve no API (worker, relay).
void addMetricsOption(QCommandLineParser &parser);
// The endpoint, started and announced (KEEL_METRICS=URL), if the option is set.
Result<std::unique_ptr<MetricsEndpoint>> startMetrics(const QCommandLineParser &parser);

} // namespace keel::cli
