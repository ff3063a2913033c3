#include "TestPooler.h"

#include "ServerAccountAccess.h"

#include "core/db/LibpqConnection.h"
#include "core/net/LoopbackPort.h"
#include "devkit/servers/ServiceAccount.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QThread>

#include <csignal>

namespace keel::test {
namespace {

QString pgbouncerProgram()
{
    return QStandardPaths::findExecutable(
        QStringLiteral("pgbouncer"), {QStringLiteral("/usr/sbin"), QStringLiteral("/usr/bin")});
}

} // namespace

bool TestPooler::available()
{
    return !pgbouncerProgram().isEmpty();
}

TestPooler::TestPooler(const ConnectionSettings &server, int poolSize)
{
    Result<ServiceAccount> account = ServiceAccount::forServer();
    if (!account || !m_parent.isValid()) {
        m_error = account ? QStringLiteral("no temporary directory") : account.error().message;
        return;
    }
    letServerAccountThrough(m_parent.path());
    m_directory = m_parent.filePath(QStringLiteral("pgbouncer"));
    if (Status prepared = account->prepareDirectory(m_directory); !prepared) {
        m_error = prepared.error().message;
        return;
    }
    const int port = bindLoopback();
    const QString user = server.value(QStringLiteral("user"));
    const QString database = server.value(QStringLiteral("dbname"));
    QFile users(QDir(m_directory).filePath(QStringLiteral("users.txt")));
    QFile config(QDir(m_directory).filePath(QStringLiteral("pgbouncer.ini")));
    if (!users.open(QIODevice::WriteOnly) || !config.open(QIODevice::WriteOnly)) {
        m_error = QStringLiteral("cannot write the pooler's configuration");
        return;
    }
    users.write(QStringLiteral("\"%1\" \"\"\n").arg(user).toUtf8());
    config.write(QStringLiteral("[databases]\n"
                                "%1 = host=%2 port=%3 dbname=%1 user=%4\n"
                                "[pgbouncer]\n"
                                "listen_addr = 127.0.0.1\n"
                                "listen_port = %5\n"
                                "unix_socket_dir =\n"
                                "auth_type = trust\n"
                                "auth_file = %6\n"
                                "pool_mode = transaction\n"
                                "default_pool_size = %7\n"
                                "max_db_connections = %7\n"
                                "max_client_conn = 500\n"
                                "logfile = %8\n")
                     .arg(database, server.value(QStringLiteral("host")),
                          server.value(QStringLiteral("port")), user)
                     .arg(port)
                     .arg(users.fileName())
                     .arg(poolSize)
                     .arg(log())
                     .toUtf8());
    users.close();
    config.close();
    for (QFile *file : {&users, &config})
        QFile::setPermissions(file->fileName(), QFile::ReadOwner | QFile::ReadOther);
    m_process = std::make_unique<QProcess>();
    const ServiceAccount who = *account;
    m_process->setChildProcessModifier([who] { who.enterInChild(SIGTERM); });
    m_process->setProcessChannelMode(QProcess::ForwardedChannels);
    m_process->start(pgbouncerProgram(), {config.fileName()});
    m_settings.set(QStringLiteral("host"), QStringLiteral("127.0.0.1"));
    m_settings.set(QStringLiteral("port"), QString::number(port));
    m_settings.set(QStringLiteral("dbname"), database);
    m_settings.set(QStringLiteral("user"), user);
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 20000 && m_process->state() != QProcess::NotRunning) {
        if (LibpqConnection::open(m_settings)) {
            m_started = true;
            return;
        }
        QThread::msleep(100);
    }
    m_error = QStringLiteral("pgbouncer did not take connections; see %1").arg(log());
}

TestPooler::~TestPooler()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        if (!m_process->waitForFinished(10000))
            m_process->kill();
        m_process->waitForFinished(5000);
    }
}

QString TestPooler::log() const
{
    return QDir(m_directory).filePath(QStringLiteral("pgbouncer.log"));
}

} // namespace keel::test
