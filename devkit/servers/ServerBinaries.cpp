#include "devkit/servers/ServerBinaries.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QVersionNumber>

namespace keel {
namespace {

bool hasServerPrograms(const QString &directory)
{
    const QDir dir(directory);
    return QFileInfo(dir.filePath(QStringLiteral("initdb"))).isExecutable() &&
           QFileInfo(dir.filePath(QStringLiteral("postgres"))).isExecutable() &&
           QFileInfo(dir.filePath(QStringLiteral("pg_ctl"))).isExecutable();
}

QString fromPgConfig()
{
    const QString pgConfig = QStandardPaths::findExecutable(QStringLiteral("pg_config"));
    if (pgConfig.isEmpty())
        return {};
    QProcess process;
    process.start(pgConfig, {QStringLiteral("--bindir")});
    if (!process.waitForFinished(5000) || process.exitCode() != 0)
        return {};
    return QString::fromLocal8Bit(process.readAllStandardOutput()).trimmed();
}

QString newestDebianBindir()
{
    const QDir root(QStringLiteral("/usr/lib/postgresql"));
    QString best;
    QVersionNumber bestVersion;
    for (const QString &major : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        const QVersionNumber version = QVersionNumber::fromString(major);
        const QString bindir = root.filePath(major + QStringLiteral("/bin"));
        if (hasServerPrograms(bindir) && version > bestVersion) {
            best = bindir;
            bestVersion = version;
        }
    }
    return best;
}

} // namespace

Result<ServerBinaries> ServerBinaries::locate()
{
    ServerBinaries binaries;
    const QString fromEnv = qEnvironmentVariable("KEEL_PG_BINDIR");
    if (!fromEnv.isEmpty()) {
        if (!hasServerPrograms(fromEnv))
            return makeError(ErrorKind::Environment,
                             QStringLiteral("KEEL_PG_BINDIR=%1 does not hold initdb, postgres and "
                                            "pg_ctl; point it at PostgreSQL's bin directory or "
                                            "unset it")
                                 .arg(fromEnv));
        binaries.m_directory = fromEnv;
        return binaries;
    }
    for (const QString &candidate : {fromPgConfig(), newestDebianBindir()}) {
        if (!candidate.isEmpty() && hasServerPrograms(candidate)) {
            binaries.m_directory = candidate;
            return binaries;
        }
    }
    const QString initdb = QStandardPaths::findExecutable(QStringLiteral("initdb"));
    if (!initdb.isEmpty() && hasServerPrograms(QFileInfo(initdb).absolutePath())) {
        binaries.m_directory = QFileInfo(initdb).absolutePath();
        return binaries;
    }
    return makeError(ErrorKind::Environment,
                     QStringLiteral("cannot find PostgreSQL's server programs (initdb, postgres); "
                                    "install them with packaging/install-deps (Debian package "
                                    "postgresql-15) or set KEEL_PG_BINDIR"));
}

QString ServerBinaries::program(const QString &name) const
{
    return QDir(m_directory).filePath(name);
}

} // namespace keel
