#include "MetricsOption.h"

#include "Command.h"

#include "core/runtime/MetricsEndpoint.h"

#include <QCommandLineParser>

namespace keel::cli {

void addMetricsOption(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("metrics"),
                      QStringLiteral("Serve /metrics and /healthz on HOST:PORT for Prometheus "
                                     "(prints KEEL_METRICS=URL); off by default."),
                      QStringLiteral("HOST:PORT")});
}

Result<std::unique_ptr<MetricsEndpoint>> startMetrics(const QCommandLineParser &parser)
{
    if (!parser.isSet(QStringLiteral("metrics")))
        return std::unique_ptr<MetricsEndpoint>();
    Result<std::pair<QString, int>> listen = parseListen(parser.value(QStringLiteral("metrics")));
    if (!listen)
        return fieldError(QStringLiteral("metrics"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("--metrics: %1").arg(listen.error().message));
    Result<std::unique_ptr<MetricsEndpoint>> endpoint =
        MetricsEndpoint::start(listen->first, listen->second);
    if (!endpoint)
        return endpoint.error();
    printLine(QStringLiteral("KEEL_METRICS=%1").arg((*endpoint)->url()));
    return endpoint;
}

} // namespace keel::cli
