#include "Command.h"
#include "GatewayOptionsParser.h"
#include "ShutdownSignals.h"

#include "core/net/HttpClient.h"
#include "devkit/stack/DevStack.h"

#include <QCommandLineParser>
#include <QElapsedTimer>

#include <cstring>

namespace keel::cli {
namespace {

class DevCommand final : public Command {
public:
    QString name() const override { return QStringLiteral("dev"); }
    QString summary() const override
    {
        return QStringLiteral("Run a private PostgreSQL with keel's schema and the gateway for "
                              "development and demos; Ctrl-C stops it.");
    }

    void addOptions(QCommandLineParser &parser) const override
    {
        parser.addOption({QStringLiteral("dir"),
                          QStringLiteral("Data directory (created on first run). Default: %1")
                              .arg(DevStack::defaultDirectory()),
                          QStringLiteral("DIR")});
        parser.addOption({QStringLiteral("port"),
                          QStringLiteral("PostgreSQL's loopback TCP port. Default: the one used "
                                         "last time in DIR, else a free one."),
                          QStringLiteral("N")});
        parser.addOption({QStringLiteral("http-port"),
                          QStringLiteral("The gateway's port on 127.0.0.1 (default: a free one)."),
                          QStringLiteral("N")});
        parser.addOption({QStringLiteral("sim-protocol"),
                          QStringLiteral("keel (the default), alipay or wechatpay: the "
                                         "simulator speaks Alipay's OpenAPI or WeChat Pay API v3 "
                                         "and the gateway calls it as it would call that channel "
                                         "(yuan only)."),
                          QStringLiteral("keel|alipay|wechatpay")});
        addGatewayOptions(parser);
    }

    int run(const QCommandLineParser &parser) override
    {
        DevStack::Options options;
        options.cluster.dataDirectory = parser.isSet(QStringLiteral("dir"))
                                            ? parser.value(QStringLiteral("dir"))
                                            : DevStack::defaultDirectory();
        Result<int> port = intOption(parser, QStringLiteral("port"), 0, 1, 65535);
        if (!port)
            return fail(name(), port.error());
        options.cluster.port = *port;
        // Everything keel dev runs is on loopback over plain HTTP, a
        // --channel of the developer's among it.
        HttpClient::allowPlainHttp(true);
        Result<GatewayOptions> gateway = gatewayOptions(parser);
        if (!gateway)
            return fail(name(), gateway.error());
        Result<int> httpPort = intOption(parser, QStringLiteral("http-port"), 0, 0, 65535);
        if (!httpPort)
            return fail(name(), httpPort.error());
        options.gateway = *gateway;
        options.gateway.http.port = *httpPort;
        if (!parser.isSet(QStringLiteral("channel"))) {
            // The simulator behind HTTP, so the inbound notify path runs too.
            Result<SimulatedChannelConfig> behaviour = simulatorConfig(parser);
            if (!behaviour)
                return fail(name(), behaviour.error());
            options.channelSimulator = *behaviour;
            options.gateway.channel = nullptr;
        }
        const QString protocol = parser.value(QStringLiteral("sim-protocol"));
        if (protocol == QLatin1String("alipay"))
            options.simulatorProtocol = SimulatorProtocol::Alipay;
        else if (protocol == QLatin1String("wechatpay"))
            options.simulatorProtocol = SimulatorProtocol::WechatPay;
        else if (!protocol.isEmpty() && protocol != QLatin1String("keel"))
            return fail(name(), fieldError(QStringLiteral("sim-protocol"),
                                           QStringLiteral("parameter_invalid"),
                                           QStringLiteral("--sim-protocol must be keel, alipay "
                                                          "or wechatpay")));

        QElapsedTimer timer;
        timer.start();
        // Blocked before any thread starts, so every thread inherits the block.
        ShutdownSignals signals;
        Result<std::unique_ptr<DevStack>> stack = DevStack::start(options, note);
        if (!stack)
            return fail(name(), stack.error());
        note(QStringLiteral("ready in %1 ms (server log: %2); Ctrl-C stops it")
                 .arg(timer.elapsed())
                 .arg((*stack)->cluster().logFile()));
        printLine(QStringLiteral("KEEL_DB=%1").arg((*stack)->database().uri()));
        printLine(QStringLiteral("KEEL_HTTP=%1").arg((*stack)->gatewayUrl()));
        printLine(QStringLiteral("KEEL_API_KEY=%1").arg((*stack)->apiKey()));
        if (!(*stack)->amqpUrl().isEmpty())
            printLine(QStringLiteral("KEEL_AMQP=%1").arg((*stack)->amqpUrl()));

        QElapsedTimer sinceMaintenance;
        sinceMaintenance.start();
        while (true) {
            if (sinceMaintenance.elapsed() >= 5000) {
                (*stack)->maintain();
                sinceMaintenance.restart();
            }
            if (const int signal = signals.wait(500); signal != 0) {
                note(QStringLiteral("stopping (%1)").arg(QString::fromLatin1(strsignal(signal))));
                break;
            }
            if (!(*stack)->cluster().running())
                return fail(name(),
                            makeError(ErrorKind::Failed,
                                      QStringLiteral("PostgreSQL stopped unexpectedly; see %1")
                                          .arg((*stack)->cluster().logFile())));
        }
        if (Status stopped = (*stack)->stop(); !stopped)
            return fail(name(), stopped.error());
        note(QStringLiteral("stopped"));
        return ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeDevCommand()
{
    return std::make_unique<DevCommand>();
}

} // namespace keel::cli
