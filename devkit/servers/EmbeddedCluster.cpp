#include "devkit/servers/EmbeddedCluster.h"

#include "core/net/LoopbackPort.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/LibpqConnection.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QThread>

#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace keel {
namespace {

constexpr int StartTimeoutMs = 60000;
constexpr int StopTimeoutMs = 30000;

QString readFirstLine(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    return QString::fromLocal8Bit(file.readLine()).trimmed();
}

bool processIsPostgres(qint64 pid)
{
    return readFirstLine(QStringLiteral("/proc/%1/comm").arg(pid)) == QLatin1String("postgres");
}

bool processAlive(qint64 pid)
{
    return ::kill(pid_t(pid), 0) == 0 || errno == EPERM;
}

QString shellQuoted(const QString &text)
{
    QString escaped = text;
    escaped.replace(u'\'', QStringLiteral("'\\''"));
    return u'\'' + escaped + u'\'';
}

} // namespace

QProcessEnvironment EmbeddedCluster::programEnvironment()
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString &key : environment.keys())
        if (key.startsWith(QLatin1String("PG")))
            environment.remove(key);
    environment.insert(QStringLiteral("LC_ALL"), QStringLiteral("C"));
    return environment;
}

Result<std::unique_ptr<EmbeddedCluster>> EmbeddedCluster::create(ClusterOptions options)
{
    Result<ServerBinaries> binaries = ServerBinaries::locate();
    if (!binaries)
        return binaries.error();
    Result<ServiceAccount> account = ServiceAccount::forServer();
    if (!account)
        return account.error();
    if (options.dataDirectory.isEmpty())
        return makeError(ErrorKind::Usage, QStringLiteral("no data directory given"));
    options.dataDirectory = QDir::cleanPath(QFileInfo(options.dataDirectory).absoluteFilePath());
    // sun_path holds 108 bytes, and the socket lives in the data directory.
    if (QFile::encodeName(options.dataDirectory).size() + int(sizeof("/.s.PGSQL.65535")) > 107)
        return makeError(ErrorKind::Usage,
                         QStringLiteral("data directory path %1 is too long to hold a unix socket "
                                        "(at most about 90 bytes); choose a shorter --dir")
                             .arg(options.dataDirectory));
    return std::unique_ptr<EmbeddedCluster>(
        new EmbeddedCluster(std::move(options), std::move(*binaries), std::move(*account)));
}

EmbeddedCluster::EmbeddedCluster(ClusterOptions options, ServerBinaries binaries,
                                 ServiceAccount account)
    : m_options(std::move(options)), m_binaries(std::move(binaries)), m_account(std::move(account))
{}

EmbeddedCluster::~EmbeddedCluster()
{
    if (m_server && m_server->state() != QProcess::NotRunning)
        (void)stop();
}

QString EmbeddedCluster::logFile() const
{
    return QDir(m_options.dataDirectory).filePath(QStringLiteral("keel-server.log"));
}

QString EmbeddedCluster::logTail() const
{
    QFile file(logFile());
    if (!file.open(QIODevice::ReadOnly))
        return QStringLiteral("(no server log)");
    const QByteArray all = file.readAll();
    QStringList lines = QString::fromLocal8Bit(all).split(u'\n', Qt::SkipEmptyParts);
    while (lines.size() > 3)
        lines.removeFirst();
    return lines.join(QStringLiteral(" | "));
}

Result<bool> EmbeddedCluster::initialize()
{
    if (Status prepared = m_account.prepareDirectory(m_options.dataDirectory); !prepared)
        return prepared.error();
    const QDir dir(m_options.dataDirectory);
    if (dir.exists(QStringLiteral("PG_VERSION")))
        return false;
    if (!dir.isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System))
        return makeError(ErrorKind::Environment,
                         QStringLiteral("%1 is not empty and holds no PostgreSQL cluster; choose "
                                        "an empty or new directory")
                             .arg(m_options.dataDirectory));

    QStringList arguments{QStringLiteral("-D"),
                          m_options.dataDirectory,
                          QStringLiteral("-U"),
                          superuser(),
                          QStringLiteral("--auth-local=trust"),
                          QStringLiteral("--auth-host=scram-sha-256"),
                          QStringLiteral("--encoding=UTF8"),
                          QStringLiteral("--locale=C"),
                          QStringLiteral("--no-instructions")};
    if (!m_options.durable)
        arguments << QStringLiteral("--no-sync");
    QProcess initdb;
    initdb.setProgram(m_binaries.program(QStringLiteral("initdb")));
    initdb.setArguments(arguments);
    initdb.setWorkingDirectory(m_options.dataDirectory);
    initdb.setProcessEnvironment(programEnvironment());
    const ServiceAccount account = m_account;
    initdb.setChildProcessModifier([account] { account.enterInChild(0); });
    initdb.start();
    if (!initdb.waitForFinished(120000) || initdb.exitStatus() != QProcess::NormalExit ||
        initdb.exitCode() != 0) {
        const QString output = QString::fromLocal8Bit(initdb.readAllStandardError()).simplified();
        return makeError(ErrorKind::Environment,
                         QStringLiteral("initdb failed in %1 (as user %2): %3")
                             .arg(m_options.dataDirectory, m_account.name(),
                                  output.isEmpty() ? initdb.errorString() : output));
    }
    return true;
}

Status EmbeddedCluster::choosePort()
{
    const QString portFile = QDir(m_options.dataDirectory).filePath(QStringLiteral("keel.port"));
    if (m_options.port > 0) {
        if (bindLoopback(m_options.port) == 0)
            return makeError(ErrorKind::Environment,
                             QStringLiteral("port %1 on 127.0.0.1 is in use; choose another with "
                                            "--port")
                                 .arg(m_options.port));
        m_port = m_options.port;
    } else {
        const int previous = readFirstLine(portFile).toInt();
        // PostgreSQL binds with SO_REUSEADDR: after a crash, connections still
        // in TIME_WAIT do not keep it from its old port, and must not move it.
        m_port = previous > 0 ? bindLoopback(previous, true) : 0;
        if (m_port == 0)
            m_port = bindLoopback(0);
        if (m_port == 0)
            return makeError(ErrorKind::Environment,
                             QStringLiteral("no free port on 127.0.0.1 for PostgreSQL"));
    }
    QFile file(portFile);
    if (file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        file.write(QByteArray::number(m_port) + '\n');
    return {};
}

Status EmbeddedCluster::clearStalePidFile()
{
    const QString pidFile =
        QDir(m_options.dataDirectory).filePath(QStringLiteral("postmaster.pid"));
    if (!QFile::exists(pidFile))
        return {};
    const qint64 pid = readFirstLine(pidFile).toLongLong();
    // A server whose keel died is shutting down on its own (it was told so by
    // the parent-death signal); give it a moment before calling it a conflict.
    for (int waited = 0; pid > 0 && processAlive(pid) && processIsPostgres(pid) && waited < 10000;
         waited += 100)
        QThread::msleep(100);
    if (pid > 0 && processAlive(pid) && processIsPostgres(pid))
        return makeError(ErrorKind::Environment,
                         QStringLiteral("a PostgreSQL server (pid %1) is already running on %2; "
                                        "stop it or choose another --dir")
                             .arg(pid)
                             .arg(m_options.dataDirectory));
    // Left by a server that was killed: nothing holds it any more.
    QFile::remove(pidFile);
    return {};
}

QStringList EmbeddedCluster::serverOptions() const
{
    QStringList options{QStringLiteral("-D"), m_options.dataDirectory,
                        QStringLiteral("-k"), m_options.dataDirectory,
                        QStringLiteral("-p"), QString::number(m_port),
                        QStringLiteral("-c"), QStringLiteral("listen_addresses=127.0.0.1"),
                        QStringLiteral("-c"), QStringLiteral("unix_socket_permissions=0700"),
                        QStringLiteral("-c"), QStringLiteral("max_connections=200")};
    if (!m_options.durable)
        options << QStringLiteral("-c") << QStringLiteral("fsync=off") << QStringLiteral("-c")
                << QStringLiteral("synchronous_commit=off") << QStringLiteral("-c")
                << QStringLiteral("full_page_writes=off");
    return options;
}

Status EmbeddedCluster::start()
{
    if (Status status = choosePort(); !status)
        return status;
    if (Status status = clearStalePidFile(); !status)
        return status;
    m_server = std::make_unique<QProcess>();
    m_server->setProgram(m_binaries.program(QStringLiteral("postgres")));
    m_server->setArguments(serverOptions());
    m_server->setWorkingDirectory(m_options.dataDirectory);
    m_server->setProcessEnvironment(programEnvironment());
    m_server->setStandardOutputFile(logFile(), QIODevice::Append);
    m_server->setStandardErrorFile(logFile(), QIODevice::Append);
    const ServiceAccount account = m_account;
    // SIGINT is PostgreSQL's fast shutdown: a killed keel leaves no server behind.
    m_server->setChildProcessModifier([account] { account.enterInChild(SIGINT); });
    m_server->start();
    if (!m_server->waitForStarted(10000))
        return makeError(ErrorKind::Environment,
                         QStringLiteral("cannot start postgres: %1").arg(m_server->errorString()));
    if (Status status = waitUntilReady(StartTimeoutMs); !status)
        return status;
    return setLoopbackPassword();
}

Status EmbeddedCluster::startDetached()
{
    if (Status status = choosePort(); !status)
        return status;
    if (Status status = clearStalePidFile(); !status)
        return status;
    QStringList quoted;
    for (const QString &option : serverOptions())
        quoted << shellQuoted(option);
    QProcess pgCtl;
    pgCtl.setProgram(m_binaries.program(QStringLiteral("pg_ctl")));
    pgCtl.setArguments({QStringLiteral("-D"), m_options.dataDirectory, QStringLiteral("-l"),
                        logFile(), QStringLiteral("-o"), quoted.join(u' '), QStringLiteral("-w"),
                        QStringLiteral("-t"), QString::number(StartTimeoutMs / 1000),
                        QStringLiteral("start")});
    pgCtl.setWorkingDirectory(m_options.dataDirectory);
    pgCtl.setProcessEnvironment(programEnvironment());
    const ServiceAccount account = m_account;
    pgCtl.setChildProcessModifier([account] { account.enterInChild(0); });
    pgCtl.start();
    if (!pgCtl.waitForFinished(StartTimeoutMs + 5000) || pgCtl.exitCode() != 0)
        return makeError(
            ErrorKind::Environment,
            QStringLiteral("pg_ctl could not start the server: %1 %2")
                .arg(QString::fromLocal8Bit(pgCtl.readAllStandardError()).simplified(), logTail()));
    m_detached = true;
    if (Status status = waitUntilReady(StartTimeoutMs); !status)
        return status;
    return setLoopbackPassword();
}

Status EmbeddedCluster::waitUntilReady(int timeoutMs)
{
    const ConnectionSettings probe = settings(QStringLiteral("postgres"));
    for (int waited = 0; waited < timeoutMs; waited += 50) {
        if (m_server && m_server->state() == QProcess::NotRunning)
            return makeError(ErrorKind::Environment,
                             QStringLiteral("PostgreSQL exited during start-up: %1 (log: %2)")
                                 .arg(logTail(), logFile()));
        if (serverAccepting(probe))
            return {};
        QThread::msleep(50);
    }
    return makeError(ErrorKind::Environment,
                     QStringLiteral("PostgreSQL did not accept connections within %1 s: %2")
                         .arg(timeoutMs / 1000)
                         .arg(logTail()));
}

Status EmbeddedCluster::setLoopbackPassword()
{
    const QString passwordFile =
        QDir(m_options.dataDirectory).filePath(QStringLiteral("keel.password"));
    if (QFile::exists(passwordFile))
        return {};
    static constexpr char alphabet[] = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    QByteArray password;
    for (int i = 0; i < 24; ++i)
        password += alphabet[QRandomGenerator::system()->bounded(int(sizeof alphabet) - 1)];
    Result<LibpqConnection> session = LibpqConnection::open(settings(QStringLiteral("postgres")));
    if (!session)
        return session.error();
    if (Status status = session->exec("ALTER ROLE keel PASSWORD '" + password + "'"); !status)
        return status;
    QFile file(passwordFile);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return makeError(
            ErrorKind::Environment,
            QStringLiteral("cannot write %1: %2").arg(passwordFile, file.errorString()));
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(password + '\n');
    file.close();
    // Owned like the rest of the directory: a root caller would otherwise leave
    // a file the server cannot read, and pg_basebackup of this cluster fails.
    const QFileInfo directory(m_options.dataDirectory);
    if (::chown(QFile::encodeName(passwordFile).constData(), directory.ownerId(),
                directory.groupId()) != 0 &&
        errno != EPERM)
        return makeError(ErrorKind::Environment,
                         QStringLiteral("cannot hand %1 to the server's account: %2")
                             .arg(passwordFile, QString::fromLocal8Bit(std::strerror(errno))));
    return {};
}

Status EmbeddedCluster::stop()
{
    if (m_server && m_server->state() != QProcess::NotRunning) {
        ::kill(pid_t(m_server->processId()), SIGINT);
        if (!m_server->waitForFinished(StopTimeoutMs)) {
            m_server->kill();
            m_server->waitForFinished(5000);
            return makeError(ErrorKind::Failed,
                             QStringLiteral("PostgreSQL did not stop within %1 s and was killed")
                                 .arg(StopTimeoutMs / 1000));
        }
        return {};
    }
    if (m_detached) {
        if (Status status = stopDirectory(); !status)
            return status;
        m_detached = false;
    }
    return {};
}

Status EmbeddedCluster::stopImmediately()
{
    if (m_server && m_server->state() != QProcess::NotRunning) {
        ::kill(pid_t(m_server->processId()), SIGQUIT);
        if (!m_server->waitForFinished(StopTimeoutMs))
            return makeError(ErrorKind::Failed, QStringLiteral("PostgreSQL did not stop"));
        return {};
    }
    return stopDirectory(QStringLiteral("immediate"));
}

Status EmbeddedCluster::stopDirectory(const QString &mode)
{
    QProcess pgCtl;
    pgCtl.setProgram(m_binaries.program(QStringLiteral("pg_ctl")));
    pgCtl.setArguments({QStringLiteral("-D"), m_options.dataDirectory, QStringLiteral("-m"), mode,
                        QStringLiteral("-w"), QStringLiteral("stop")});
    pgCtl.setWorkingDirectory(m_options.dataDirectory);
    pgCtl.setProcessEnvironment(programEnvironment());
    const ServiceAccount account = m_account;
    pgCtl.setChildProcessModifier([account] { account.enterInChild(0); });
    pgCtl.start();
    if (!pgCtl.waitForFinished(StopTimeoutMs) || pgCtl.exitCode() != 0)
        return makeError(
            ErrorKind::Failed,
            QStringLiteral("pg_ctl stop failed: %1")
                .arg(QString::fromLocal8Bit(pgCtl.readAllStandardError()).simplified()));
    return {};
}

bool EmbeddedCluster::running() const
{
    if (m_server) {
        // Without an event loop the child's exit is only noticed (and the
        // zombie reaped) when asked for.
        m_server->waitForFinished(0);
        return m_server->state() != QProcess::NotRunning;
    }
    return m_detached && serverAccepting(settings(QStringLiteral("postgres")));
}

ConnectionSettings EmbeddedCluster::settings(const QString &database) const
{
    ConnectionSettings settings;
    settings.set(QStringLiteral("host"), m_options.dataDirectory);
    settings.set(QStringLiteral("port"), QString::number(m_port));
    settings.set(QStringLiteral("user"), superuser());
    settings.set(QStringLiteral("dbname"), database);
    return settings;
}

Status EmbeddedCluster::ensureDatabase(const QString &name)
{
    static const QRegularExpression valid(QStringLiteral("^[a-z_][a-z0-9_]{0,62}$"));
    if (!valid.match(name).hasMatch())
        return makeError(
            ErrorKind::Usage,
            QStringLiteral("database name %1 must be lowercase letters, digits and _").arg(name));
    Result<LibpqConnection> session = LibpqConnection::open(settings(QStringLiteral("postgres")));
    if (!session)
        return session.error();
    Status created = session->exec("CREATE DATABASE " + name.toLatin1());
    if (!created && !created.error().is(ErrorCode::DuplicateDatabase))
        return created;
    return {};
}

Status EmbeddedCluster::dropDatabase(const QString &name)
{
    Result<LibpqConnection> session = LibpqConnection::open(settings(QStringLiteral("postgres")));
    if (!session)
        return session.error();
    return session->exec("DROP DATABASE IF EXISTS " + name.toLatin1() + " WITH (FORCE)");
}

} // namespace keel
