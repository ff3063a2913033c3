#include "Command.h"
#include "ShutdownSignals.h"

#include "devkit/sim/TrafficSimulator.h"

#include <QCommandLineParser>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>

#include <thread>

namespace keel::cli {
namespace {

// `--record`: one JSON line per request and its answer, written as each
// answer arrives so that a run cut short still leaves what it was told.
class ExchangeLog final {
public:
    Status open(const QString &path)
    {
        m_file.setFileName(path);
        if (!m_file.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return fieldError(
                QStringLiteral("record"), QStringLiteral("parameter_invalid"),
                QStringLiteral("--record: cannot write %1: %2").arg(path, m_file.errorString()));
        return {};
    }

    void write(const SimulatedExchange &exchange)
    {
        const QJsonObject line{{QStringLiteral("key"), QString::fromLatin1(exchange.key)},
                               {QStringLiteral("path"), QString::fromLatin1(exchange.path)},
                               {QStringLiteral("body"), QString::fromUtf8(exchange.body)},
                               {QStringLiteral("status"), exchange.status},
                               {QStringLiteral("reply"), QString::fromUtf8(exchange.reply)},
                               {QStringLiteral("sent_ms"), exchange.sentMs},
                               {QStringLiteral("answered_ms"), exchange.answeredMs}};
        const QMutexLocker lock(&m_mutex);
        m_file.write(QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n');
        m_file.flush();
    }

private:
    QMutex m_mutex;
    QFile m_file;
};

class SimulateCommand final : public Command {
public:
    QString name() const override { return QStringLiteral("simulate"); }
    QString summary() const override
    {
        return QStringLiteral("Send realistic merchant traffic to a gateway: retries, duplicates, "
                              "declines, captures, refunds.");
    }

    void addOptions(QCommandLineParser &parser) const override
    {
        parser.addOption({QStringLiteral("http"),
                          QStringLiteral("The gateway (KEEL_HTTP from keel dev)."),
                          QStringLiteral("URL")});
        parser.addOption({QStringLiteral("api-key"),
                          QStringLiteral("A merchant's API key (sk_...)."), QStringLiteral("KEY")});
        parser.addOption({QStringLiteral("rate"),
                          QStringLiteral("Scenarios per second (default 20)."),
                          QStringLiteral("R")});
        parser.addOption({QStringLiteral("seconds"),
                          QStringLiteral("How long to run (default 60; 0 = until Ctrl-C)."),
                          QStringLiteral("S")});
        parser.addOption({QStringLiteral("clients"),
                          QStringLiteral("Concurrent clients (default 4)."), QStringLiteral("N")});
        parser.addOption({QStringLiteral("participant"),
                          QStringLiteral("Also run order sagas whose steps call this service "
                                         "(/reserve, /release, /confirm, /unconfirm, /notify)."),
                          QStringLiteral("URL")});
        parser.addOption({QStringLiteral("record"),
                          QStringLiteral("Write every request and its answer to FILE, one JSON "
                                         "object per line."),
                          QStringLiteral("FILE")});
    }

    int run(const QCommandLineParser &parser) override
    {
        SimulationOptions options;
        options.url = parser.isSet(QStringLiteral("http")) ? parser.value(QStringLiteral("http"))
                                                           : qEnvironmentVariable("KEEL_HTTP");
        options.apiKey = parser.isSet(QStringLiteral("api-key"))
                             ? parser.value(QStringLiteral("api-key"))
                             : qEnvironmentVariable("KEEL_API_KEY");
        if (options.url.isEmpty() || options.apiKey.isEmpty())
            return fail(name(), makeError(ErrorKind::Usage,
                                          QStringLiteral("--http and --api-key are required (or "
                                                         "KEEL_HTTP and KEEL_API_KEY)")));
        Result<int> seconds = intOption(parser, QStringLiteral("seconds"), 60, 0, 86400 * 30);
        Result<int> clients = intOption(parser, QStringLiteral("clients"), 4, 1, 256);
        if (!seconds || !clients)
            return fail(name(), !seconds ? seconds.error() : clients.error());
        bool ok = true;
        options.ratePerSecond = parser.isSet(QStringLiteral("rate"))
                                    ? parser.value(QStringLiteral("rate")).toDouble(&ok)
                                    : 20.0;
        if (!ok || options.ratePerSecond <= 0 || options.ratePerSecond > 100000)
            return fail(name(),
                        makeError(ErrorKind::Usage,
                                  QStringLiteral("--rate must be a number above 0; got \"%1\"")
                                      .arg(parser.value(QStringLiteral("rate")))));
        options.seconds = *seconds;
        options.clients = *clients;
        options.participantUrl = parser.value(QStringLiteral("participant"));
        ExchangeLog log;
        if (parser.isSet(QStringLiteral("record"))) {
            if (Status opened = log.open(parser.value(QStringLiteral("record"))); !opened)
                return fail(name(), opened.error());
            options.record = [&log](const SimulatedExchange &exchange) {
                log.write(exchange);
            };
        }

        ShutdownSignals signals;
        TrafficSimulator simulator(options);
        Status status;
        std::thread worker([&] { status = simulator.run(); });
        std::atomic<bool> done{false};
        std::thread watcher([&] {
            while (!done) {
                if (signals.wait(200) != 0) {
                    simulator.stop();
                    break;
                }
            }
        });
        worker.join();
        done = true;
        watcher.join();
        if (!status)
            return fail(name(), status.error());
        const SimulationTally &tally = simulator.tally();
        printLine(QStringLiteral("requests=%1 created=%2 replayed=%3 in_flight=%4 mismatched=%5 "
                                 "declined=%6 refunded=%7 failed=%8")
                      .arg(tally.requests.load())
                      .arg(tally.created.load())
                      .arg(tally.replayed.load())
                      .arg(tally.inFlight.load())
                      .arg(tally.mismatched.load())
                      .arg(tally.declined.load())
                      .arg(tally.refunded.load())
                      .arg(tally.failed.load()));
        return tally.failed.load() > 0 ? ExitFailed : ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeSimulateCommand()
{
    return std::make_unique<SimulateCommand>();
}

} // namespace keel::cli
