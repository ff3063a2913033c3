#include "Command.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/Database.h"
#include "core/db/EmbeddedCluster.h"
#include "core/db/Migrator.h"

#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QStandardPaths>

#include <csignal>
#include <ctime>
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

// Blocks SIGINT/SIGTERM and waits for one, waking up to check the server.
class ShutdownSignals final {
public:
    ShutdownSignals()
    {
        sigemptyset(&m_set);
        sigaddset(&m_set, SIGINT);
        sigaddset(&m_set, SIGTERM);
        sigaddset(&m_set, SIGHUP);
        pthread_sigmask(SIG_BLOCK, &m_set, nullptr);
    }
    // The signal received, or 0 after the timeout.
    int wait(int timeoutMs)
    {
        timespec timeout{timeoutMs / 1000, long(timeoutMs % 1000) * 1000000L};
        const int signal = sigtimedwait(&m_set, nullptr, &timeout);
        return signal > 0 ? signal : 0;
    }

private:
    sigset_t m_set;
};

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
                          QStringLiteral("Loopback TCP port. Default: the one used last time in "
                                         "DIR, else a free one."),
                          QStringLiteral("N")});
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

        note(QStringLiteral("ready in %1 ms (server log: %2); Ctrl-C stops it")
                 .arg(timer.elapsed())
                 .arg(cluster.logFile()));
        printLine(QStringLiteral("KEEL_DB=%1").arg(settings.uri()));

        while (true) {
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
        if (Status stopped = cluster.stop(); !stopped)
            return fail(name(), stopped.error());
        note(QStringLiteral("stopped"));
        return ExitOk;
    }

private:
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
