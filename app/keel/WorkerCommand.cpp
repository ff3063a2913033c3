#include "Command.h"
#include "GatewayOptionsParser.h"
#include "MetricsOption.h"
#include "ServiceManager.h"
#include "ShutdownSignals.h"

#include "core/db/ConnectionSettings.h"
#include "core/runtime/MetricsEndpoint.h"
#include "core/runtime/WorkerRuntime.h"

#include <QCommandLineParser>

#include <cstring>

namespace keel::cli {
namespace {

class WorkerCommand final : public Command {
public:
    QString name() const override { return QStringLiteral("worker"); }
    QString summary() const override
    {
        return QStringLiteral("Run sagas: claim due steps and compensations with leases, call "
                              "their participants, park what cannot be undone; prints "
                              "KEEL_WORKER=ready when running.");
    }

    void addOptions(QCommandLineParser &parser) const override
    {
        addDatabaseOption(parser);
        parser.addOption({QStringLiteral("forward"),
                          QStringLiteral("Threads running forward steps (default 4)."),
                          QStringLiteral("N")});
        parser.addOption({QStringLiteral("compensate"),
                          QStringLiteral("Threads running compensations, apart from the forward "
                                         "ones so neither can starve the other (default 2)."),
                          QStringLiteral("M")});
        parser.addOption({QStringLiteral("per-host"),
                          QStringLiteral("Calls in flight to one participant host (default 4)."),
                          QStringLiteral("N")});
        parser.addOption({QStringLiteral("poll"),
                          QStringLiteral("Milliseconds between looks for due work when no "
                                         "notification arrives (default 1000)."),
                          QStringLiteral("MS")});
        parser.addOption({QStringLiteral("lease"),
                          QStringLiteral("Milliseconds a claim holds a saga before another "
                                         "worker may take it over (default 30000)."),
                          QStringLiteral("MS")});
        parser.addOption({QStringLiteral("lock-timeout"),
                          QStringLiteral("Milliseconds after which a payment step's key held by "
                                         "a dead process may be taken over (default 30000)."),
                          QStringLiteral("MS")});
        parser.addOption({QStringLiteral("notify-senders"),
                          QStringLiteral("Threads delivering merchant notifications; 0 sends "
                                         "none from this worker (default 2)."),
                          QStringLiteral("N")});
        parser.addOption({QStringLiteral("notify-schedule"),
                          QStringLiteral("Seconds to wait after each failed notification "
                                         "attempt, comma-separated; the attempt after the last "
                                         "pause that fails parks it (default about three days: "
                                         "60,300,900,3600,10800,21600,43200,43200,43200,43200,"
                                         "43200)."),
                          QStringLiteral("S,S,...")});
        addChannelOptions(parser);
        addMetricsOption(parser);
    }

    int run(const QCommandLineParser &parser) override
    {
        Result<ConnectionSettings> settings = ConnectionSettings::parse(databaseOption(parser));
        if (!settings)
            return fail(name(), settings.error());
        Result<WorkerOptions> options = workerOptions(parser);
        if (!options)
            return fail(name(), options.error());
        options->settings = *settings;

        ShutdownSignals signals;
        Result<std::unique_ptr<WorkerRuntime>> runtime = WorkerRuntime::start(*options);
        if (!runtime)
            return fail(name(), runtime.error());
        Result<std::unique_ptr<MetricsEndpoint>> metrics = startMetrics(parser);
        if (!metrics)
            return fail(name(), metrics.error());
        note(QStringLiteral("running %1 forward and %2 compensation threads; Ctrl-C stops")
                 .arg(options->saga.forwardThreads)
                 .arg(options->saga.compensateThreads));
        printLine(QStringLiteral("KEEL_WORKER=ready"));
        ServiceManager::ready();

        const int signal = signals.serve([&] { (*runtime)->maintain(); });
        note(QStringLiteral("stopping (%1)").arg(QString::fromLatin1(strsignal(signal))));
        ServiceManager::stopping();
        (*runtime)->stop();
        return ExitOk;
    }

private:
    static Result<WorkerOptions> workerOptions(const QCommandLineParser &parser)
    {
        Result<int> forward = intOption(parser, QStringLiteral("forward"), 4, 1, 256);
        Result<int> compensate = intOption(parser, QStringLiteral("compensate"), 2, 1, 256);
        Result<int> perHost = intOption(parser, QStringLiteral("per-host"), 4, 1, 1024);
        Result<int> poll = intOption(parser, QStringLiteral("poll"), 1000, 10, 600000);
        Result<int> lease = intOption(parser, QStringLiteral("lease"), 30000, 1000, 3600000);
        Result<int> lock = intOption(parser, QStringLiteral("lock-timeout"), 30000, 100, 3600000);
        Result<int> senders = intOption(parser, QStringLiteral("notify-senders"), 2, 0, 64);
        Result<QList<int>> schedule = notifySchedule(parser);
        Result<ChannelFactory> channel = channelOption(parser);
        for (const Error *failed :
             {forward ? nullptr : &forward.error(), compensate ? nullptr : &compensate.error(),
              perHost ? nullptr : &perHost.error(), poll ? nullptr : &poll.error(),
              lease ? nullptr : &lease.error(), lock ? nullptr : &lock.error(),
              senders ? nullptr : &senders.error(), schedule ? nullptr : &schedule.error(),
              channel ? nullptr : &channel.error()})
            if (failed)
                return *failed;
        WorkerOptions options;
        options.saga.forwardThreads = *forward;
        options.saga.compensateThreads = *compensate;
        options.saga.perHostLimit = *perHost;
        options.saga.pollMs = *poll;
        options.saga.leaseMs = *lease;
        options.idempotency.lockTimeoutMs = *lock;
        options.channel = *channel;
        options.notificationSenders = *senders;
        if (!schedule->isEmpty())
            options.notifications.retryDelaysSeconds = *schedule;
        return options;
    }

    static Result<QList<int>> notifySchedule(const QCommandLineParser &parser)
    {
        QList<int> seconds;
        if (!parser.isSet(QStringLiteral("notify-schedule")))
            return seconds;
        for (const QString &item :
             parser.value(QStringLiteral("notify-schedule")).split(u',', Qt::SkipEmptyParts)) {
            bool number = false;
            const int value = item.trimmed().toInt(&number);
            if (!number || value < 1 || value > 7 * 86400)
                return fieldError(QStringLiteral("notify-schedule"),
                                  QStringLiteral("parameter_invalid"),
                                  QStringLiteral("--notify-schedule takes seconds between 1 and "
                                                 "604800, comma-separated; got \"%1\"")
                                      .arg(item));
            seconds << value;
        }
        if (seconds.isEmpty())
            return fieldError(QStringLiteral("notify-schedule"),
                              QStringLiteral("parameter_invalid"),
                              QStringLiteral("--notify-schedule needs at least one pause"));
        return seconds;
    }
};

} // namespace

std::unique_ptr<Command> makeWorkerCommand()
{
    return std::make_unique<WorkerCommand>();
}

} // namespace keel::cli
