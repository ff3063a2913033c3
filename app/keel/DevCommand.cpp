#include "Command.h"
#include "GatewayOptionsParser.h"
#include "ShutdownSignals.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/Database.h"
#include "core/db/EmbeddedCluster.h"
#include "core/db/Migrator.h"
#include "core/db/PgSession.h"
#include "core/http/GatewayRuntime.h"
#include "core/merchant/MerchantStore.h"

#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QStandardPaths>

#include <unistd.h>

namespace keel::cli {
namespace {

QString defaultDataDirectory()
{
    // root's home is closed to the unprivileged account the server runs as.
    if (::geteuid() == 0)
        return QStringLiteral("/var/lib/keel/dev");
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/keel/dev");
}

class DevCommand final : public Command {
public:
    QString name() const override { return QStringLiteral("dev"); }
    QString summary() const override
    {
        return QStringLiteral("Run a private PostgreSQL with keel's schema for development and "
                              "demos; Ctrl-C stops it.");
    }

    void addOptions(QCommandLineParser &parser) const override
    {
        parser.addOption({QStringLiteral("dir"),
                          QStringLiteral("Data directory (created on first run). Default: %1")
                              .arg(defaultDataDirectory()),
                          QStringLiteral("DIR")});
        parser.addOption({QStringLiteral("port"),
                          QStringLiteral("PostgreSQL's loopback TCP port. Default: the one used "
                                         "last time in DIR, else a free one."),
                          QStringLiteral("N")});
        parser.addOption({QStringLiteral("http-port"),
                          QStringLiteral("The gateway's port on 127.0.0.1 (default: a free one)."),
                          QStringLiteral("N")});
        addGatewayOptions(parser);
    }

    int run(const QCommandLineParser &parser) override
    {
        ClusterOptions options;
        options.dataDirectory = parser.isSet(QStringLiteral("dir"))
                                    ? parser.value(QStringLiteral("dir"))
                                    : defaultDataDirectory();
        if (parser.isSet(QStringLiteral("port"))) {
            bool ok = false;
            options.port = parser.value(QStringLiteral("port")).toInt(&ok);
            if (!ok || options.port < 1 || options.port > 65535)
                return fail(name(), makeError(ErrorKind::Usage,
                                              QStringLiteral("--port must be a number from 1 to "
                                                             "65535, not \"%1\"")
                                                  .arg(parser.value(QStringLiteral("port")))));
        }

        QElapsedTimer timer;
        timer.start();
        Result<std::unique_ptr<EmbeddedCluster>> created = EmbeddedCluster::create(options);
        if (!created)
            return fail(name(), created.error());
        EmbeddedCluster &cluster = **created;

        Result<bool> initialized = cluster.initialize();
        if (!initialized)
            return fail(name(), initialized.error());
        note(*initialized
                 ? QStringLiteral("created a new cluster in %1").arg(cluster.dataDirectory())
                 : QStringLiteral("reusing the cluster in %1").arg(cluster.dataDirectory()));

        ShutdownSignals signals;
        if (Status started = cluster.start(); !started)
            return fail(name(), started.error());
        if (Status created_ = cluster.ensureDatabase(QStringLiteral("keel")); !created_)
            return fail(name(), created_.error());

        const ConnectionSettings settings = cluster.settings(QStringLiteral("keel"));
        if (Status migrated = migrate(settings); !migrated)
            return fail(name(), migrated.error());

        Result<GatewayOptions> gateway = gatewayOptions(parser);
        if (!gateway)
            return fail(name(), gateway.error());
        Result<int> httpPort = intOption(parser, QStringLiteral("http-port"), 0, 0, 65535);
        if (!httpPort)
            return fail(name(), httpPort.error());
        gateway->settings = settings;
        gateway->http.port = *httpPort;
        Result<QString> apiKey = demoMerchantKey(cluster, settings);
        if (!apiKey)
            return fail(name(), apiKey.error());
        Result<std::unique_ptr<GatewayRuntime>> runtime = GatewayRuntime::start(*gateway);
        if (!runtime)
            return fail(name(), runtime.error());

        note(QStringLiteral("ready in %1 ms (server log: %2); Ctrl-C stops it")
                 .arg(timer.elapsed())
                 .arg(cluster.logFile()));
        printLine(QStringLiteral("KEEL_DB=%1").arg(settings.uri()));
        printLine(QStringLiteral("KEEL_HTTP=%1").arg((*runtime)->url()));
        printLine(QStringLiteral("KEEL_API_KEY=%1").arg(*apiKey));

        QElapsedTimer sinceMaintenance;
        sinceMaintenance.start();
        while (true) {
            if (sinceMaintenance.elapsed() >= 5000) {
                (*runtime)->maintain();
                sinceMaintenance.restart();
            }
            if (const int signal = signals.wait(500); signal != 0) {
                note(QStringLiteral("stopping (%1)").arg(QString::fromLatin1(strsignal(signal))));
                break;
            }
            if (!cluster.running())
                return fail(name(), makeError(ErrorKind::Failed,
                                              QStringLiteral("PostgreSQL stopped unexpectedly; see "
                                                             "%1")
                                                  .arg(cluster.logFile())));
        }
        (*runtime)->stop();
        if (Status stopped = cluster.stop(); !stopped)
            return fail(name(), stopped.error());
        note(QStringLiteral("stopped"));
        return ExitOk;
    }

private:
    // The demo merchant's API key: issued on first run, kept in the data
    // directory (mode 0600) since only its hash is in the database.
    static Result<QString> demoMerchantKey(const EmbeddedCluster &cluster,
                                           const ConnectionSettings &settings)
    {
        const QString path =
            QDir(cluster.dataDirectory()).filePath(QStringLiteral("keel-demo.apikey"));
        QFile file(path);
        if (file.open(QIODevice::ReadOnly)) {
            const QString key = QString::fromLatin1(file.readAll()).trimmed();
            if (!key.isEmpty())
                return key;
        }
        Result<PgSession> session = PgSession::open(settings);
        if (!session)
            return session.error();
        Result<IssuedMerchant> issued =
            MerchantStore(*session).create(QStringLiteral("Demo Merchant"), {});
        if (!issued)
            return issued.error();
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return makeError(ErrorKind::Environment,
                             QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        file.write(issued->apiKey.toLatin1() + '\n');
        return issued->apiKey;
    }

    static Status migrate(const ConnectionSettings &settings)
    {
        Result<QList<Migration>> migrations = MigrationSource::load();
        if (!migrations)
            return migrations.error();
        Status result;
        {
            Result<QSqlDatabase> db = Database::connect(settings, QStringLiteral("keel-dev"));
            if (!db)
                return db.error();
            Migrator migrator(*db, *migrations);
            Result<int> applied = migrator.migrate([](const Migration &migration, qint64 ms) {
                note(QStringLiteral("applied %1 (%2 ms)").arg(migration.label()).arg(ms));
            });
            if (!applied)
                result = applied.error();
        }
        Database::closeThreadConnections();
        return result;
    }
};

} // namespace

std::unique_ptr<Command> makeDevCommand()
{
    return std::make_unique<DevCommand>();
}

} // namespace keel::cli
