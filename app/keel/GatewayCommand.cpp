#include "Command.h"
#include "GatewayOptionsParser.h"
#include "ServiceManager.h"
#include "ShutdownSignals.h"

#include "core/db/ConnectionSettings.h"
#include "core/runtime/GatewayRuntime.h"

#include <QCommandLineParser>

#include <sys/resource.h>

#include <cstring>

namespace keel::cli {
namespace {

// Each client connection holds a descriptor; at the usual soft limit of 1024
// a crowd of idle connections would leave none for new clients or the
// database. Take what the system allows this process.
void raiseOpenFileLimit()
{
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        (void)::setrlimit(RLIMIT_NOFILE, &limit);
    }
}

class GatewayCommand final : public Command {
public:
    QString name() const override { return QStringLiteral("gateway"); }
    QString summary() const override
    {
        return QStringLiteral("Serve the Stripe-compatible payment API (charges, refunds) over "
                              "HTTP; prints KEEL_HTTP=<url> when ready.");
    }

    void addOptions(QCommandLineParser &parser) const override
    {
        addDatabaseOption(parser);
        parser.addOption(
            {QStringLiteral("listen"),
             QStringLiteral("Address to serve on (default 127.0.0.1:8080; port 0 picks "
                            "a free one)."),
             QStringLiteral("HOST:PORT")});
        parser.addOption({QStringLiteral("transaction-pooler"),
                          QStringLiteral("--db is a pooler in transaction mode (PgBouncer "
                                         "pool_mode=transaction): send every statement unnamed, "
                                         "since a prepared one would not exist on the next "
                                         "transaction's server connection.")});
        addGatewayOptions(parser);
    }

    int run(const QCommandLineParser &parser) override
    {
        Result<ConnectionSettings> settings = ConnectionSettings::parse(databaseOption(parser));
        if (!settings)
            return fail(name(), settings.error());
        Result<GatewayOptions> options = gatewayOptions(parser);
        if (!options)
            return fail(name(), options.error());
        Result<std::pair<QString, int>> listen = parseListen(
            parser.isSet(QStringLiteral("listen")) ? parser.value(QStringLiteral("listen"))
                                                   : QStringLiteral("127.0.0.1:8080"));
        if (!listen)
            return fail(name(), listen.error());
        options->settings = *settings;
        options->settings.setTransactionPooled(parser.isSet(QStringLiteral("transaction-pooler")));
        options->http.host = listen->first;
        options->http.port = listen->second;

        raiseOpenFileLimit();
        ShutdownSignals signals;
        Result<std::unique_ptr<GatewayRuntime>> runtime = GatewayRuntime::start(*options);
        if (!runtime)
            return fail(name(), runtime.error());
        note(QStringLiteral("serving with %1 threads; Ctrl-C stops").arg(options->http.threads));
        printLine(QStringLiteral("KEEL_HTTP=%1").arg((*runtime)->url()));
        ServiceManager::ready();

        const int signal = signals.serve([&] { (*runtime)->maintain(); });
        note(QStringLiteral("stopping (%1)").arg(QString::fromLatin1(strsignal(signal))));
        ServiceManager::stopping();
        (*runtime)->stop();
        return ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeGatewayCommand()
{
    return std::make_unique<GatewayCommand>();
}

} // namespace keel::cli
