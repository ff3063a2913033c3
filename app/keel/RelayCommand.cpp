#include "Command.h"
#include "MetricsOption.h"
#include "ServiceManager.h"
#include "ShutdownSignals.h"

#include "core/db/ConnectionSettings.h"
#include "core/runtime/MetricsEndpoint.h"
#include "core/runtime/RelayRuntime.h"

#include <QCommandLineParser>
#include <QRegularExpression>

#include <cstring>

namespace keel::cli {
namespace {

class RelayCommand final : public Command {
public:
    QString name() const override { return QStringLiteral("relay"); }
    QString summary() const override
    {
        return QStringLiteral("Publish the outbox to RabbitMQ with publisher confirms, in order "
                              "per aggregate; prints KEEL_RELAY=ready when running.");
    }

    void addOptions(QCommandLineParser &parser) const override
    {
        addDatabaseOption(parser);
        parser.addOption({QStringLiteral("amqp"),
                          QStringLiteral("The broker: amqp://USER:PASS@HOST:PORT/VHOST "
                                         "(default $KEEL_AMQP). Give it once per node of a "
                                         "cluster (in $KEEL_AMQP: separated by spaces); the "
                                         "relay moves to the next node when one is down."),
                          QStringLiteral("URL")});
        parser.addOption({QStringLiteral("exchange"),
                          QStringLiteral("The durable topic exchange (default keel.events)."),
                          QStringLiteral("NAME")});
        parser.addOption({QStringLiteral("batch"),
                          QStringLiteral("Messages per confirm window (default 200)."),
                          QStringLiteral("N")});
        parser.addOption({QStringLiteral("max-attempts"),
                          QStringLiteral("Refusals before a message is parked (default 10)."),
                          QStringLiteral("N")});
        parser.addOption({QStringLiteral("poll"),
                          QStringLiteral("Milliseconds between looks when no notification "
                                         "arrives (default 1000)."),
                          QStringLiteral("MS")});
        parser.addOption({QStringLiteral("keep-published"),
                          QStringLiteral("Seconds published rows are kept before they are swept "
                                         "(default 604800)."),
                          QStringLiteral("SECONDS")});
        addMetricsOption(parser);
    }

    int run(const QCommandLineParser &parser) override
    {
        Result<ConnectionSettings> settings = ConnectionSettings::parse(databaseOption(parser));
        if (!settings)
            return fail(name(), settings.error());
        const QStringList urls =
            parser.isSet(QStringLiteral("amqp"))
                ? parser.values(QStringLiteral("amqp"))
                : qEnvironmentVariable("KEEL_AMQP")
                      .split(QRegularExpression(QStringLiteral("[\\s,]+")), Qt::SkipEmptyParts);
        QList<AmqpAddress> nodes;
        for (const QString &url : urls.isEmpty() ? QStringList{QString()} : urls) {
            Result<AmqpAddress> node = AmqpAddress::parse(url);
            if (!node)
                return fail(name(), node.error());
            nodes.append(*node);
        }
        Result<int> batch = intOption(parser, QStringLiteral("batch"), 200, 1, 10000);
        Result<int> attempts = intOption(parser, QStringLiteral("max-attempts"), 10, 1, 1000);
        Result<int> poll = intOption(parser, QStringLiteral("poll"), 1000, 10, 600000);
        Result<int> keep =
            intOption(parser, QStringLiteral("keep-published"), 604800, 0, 365 * 86400);
        for (const Error *failed :
             {batch ? nullptr : &batch.error(), attempts ? nullptr : &attempts.error(),
              poll ? nullptr : &poll.error(), keep ? nullptr : &keep.error()})
            if (failed)
                return fail(name(), *failed);
        RelayRuntimeOptions options;
        options.settings = *settings;
        options.relay.broker = nodes.takeFirst();
        options.relay.otherNodes = nodes;
        if (parser.isSet(QStringLiteral("exchange")))
            options.relay.exchange = parser.value(QStringLiteral("exchange"));
        options.relay.batch = *batch;
        options.relay.maxAttempts = *attempts;
        options.pollMs = *poll;
        options.keepPublishedSeconds = *keep;

        ShutdownSignals signals;
        Result<std::unique_ptr<RelayRuntime>> runtime = RelayRuntime::start(options);
        if (!runtime)
            return fail(name(), runtime.error());
        Result<std::unique_ptr<MetricsEndpoint>> metrics = startMetrics(parser);
        if (!metrics)
            return fail(name(), metrics.error());
        note(QStringLiteral("publishing to %1%2, exchange %3; Ctrl-C stops")
                 .arg(options.relay.broker.redacted(),
                      nodes.isEmpty() ? QString()
                                      : QStringLiteral(" (or %1 other nodes)").arg(nodes.size()),
                      options.relay.exchange));
        printLine(QStringLiteral("KEEL_RELAY=ready"));
        ServiceManager::ready();
        const int signal = signals.serve([&] { (*runtime)->maintain(); });
        note(QStringLiteral("stopping (%1)").arg(QString::fromLatin1(strsignal(signal))));
        ServiceManager::stopping();
        (*runtime)->stop();
        return ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeRelayCommand()
{
    return std::make_unique<RelayCommand>();
}

} // namespace keel::cli
