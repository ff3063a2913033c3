#include "devkit/servers/EmbeddedBroker.h"

#include "core/net/LoopbackPort.h"
#include "core/outbox/AmqpPublisher.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRandomGenerator>
#include <QThread>

#include <csignal>
#include <pthread.h>
#include <sys/prctl.h>
#include <unistd.h>

namespace keel {
namespace {

// Stops the epmd that served a node; it outlives the node, and belongs to
// this broker alone (its own port).
void stopEpmd(const QString &port)
{
    // It refuses while a node is still registered (the node, or the control
    // tool the server script runs to stop it, may linger for a moment).
    const auto run = [&](const QString &action) {
        QProcess epmd;
        epmd.setStandardOutputFile(QProcess::nullDevice());
        epmd.setStandardErrorFile(QProcess::nullDevice());
        epmd.start(QStringLiteral("epmd"), {QStringLiteral("-port"), port, action});
        epmd.waitForFinished(10000);
        return epmd.exitStatus() == QProcess::NormalExit && epmd.exitCode() == 0;
    };
    for (int attempt = 0; attempt < 50; ++attempt) {
        if (!run(QStringLiteral("-names")))
            return; // gone
        run(QStringLiteral("-kill"));
        QThread::msleep(100);
    }
}

const QString ServerProgram = QStringLiteral("/usr/lib/rabbitmq/bin/rabbitmq-server");
constexpr int StartTimeoutMs = 60000;

} // namespace

void EmbeddedBroker::stopEpmdOn(int port)
{
    stopEpmd(QString::number(port));
}

bool EmbeddedBroker::available()
{
    return QFileInfo(ServerProgram).isExecutable();
}

Status EmbeddedBroker::prepare(const QString &directory, int port)
{
    if (!available())
        return makeError(ErrorKind::Environment,
                         QStringLiteral("rabbitmq-server is not installed (apt-get install "
                                        "rabbitmq-server)"));
    if (!QDir().mkpath(directory))
        return makeError(ErrorKind::Environment, QStringLiteral("cannot create %1").arg(directory));
    m_directory = QDir(directory).absolutePath();
    // The node name and ports stay with the directory: a restarted node finds
    // its data, and stopDirectory() finds the node.
    QFile state(QDir(directory).filePath(QStringLiteral("keel-broker")));
    if (state.open(QIODevice::ReadOnly)) {
        const QList<QByteArray> fields = state.readAll().trimmed().split(' ');
        if (fields.size() == 4) {
            m_node = QString::fromLatin1(fields[0]);
            m_port = fields[1].toInt();
            m_distPort = fields[2].toInt();
            m_epmdPort = fields[3].toInt();
        }
        state.close();
    }
    if (!m_membership.node.isEmpty()) {
        m_node = m_membership.node;
        m_epmdPort = m_membership.epmdPort;
    }
    if (m_node.isEmpty())
        m_node =
            QStringLiteral("keel%1@localhost").arg(QRandomGenerator::system()->bounded(1000000));
    if (port != 0 || m_port == 0 || bindLoopback(m_port) == 0)
        m_port = port != 0 ? port : bindLoopback();
    if (m_distPort == 0 || bindLoopback(m_distPort) == 0)
        m_distPort = bindLoopback();
    // An epmd left by a node that was killed holds its port: stop it (it
    // refuses while a live node is registered) and take the port again. A
    // cluster's epmd is the cluster's.
    if (m_membership.node.isEmpty()) {
        if (m_epmdPort != 0 && bindLoopback(m_epmdPort) == 0)
            stopEpmd(QString::number(m_epmdPort));
        if (m_epmdPort == 0 || bindLoopback(m_epmdPort) == 0)
            m_epmdPort = bindLoopback();
    }
    if (!state.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        state.write(QStringLiteral("%1 %2 %3 %4\n")
                        .arg(m_node)
                        .arg(m_port)
                        .arg(m_distPort)
                        .arg(m_epmdPort)
                        .toLatin1()) < 0)
        return makeError(ErrorKind::Environment,
                         QStringLiteral("cannot write %1").arg(state.fileName()));
    return {};
}

Result<std::unique_ptr<EmbeddedBroker>> EmbeddedBroker::start(const QString &directory, int port)
{
    std::unique_ptr<EmbeddedBroker> broker(new EmbeddedBroker);
    if (Status prepared = broker->prepare(directory, port); !prepared)
        return prepared.error();
    if (Status launched = broker->launch(); !launched)
        return launched.error();
    return broker;
}

Result<std::unique_ptr<EmbeddedBroker>> EmbeddedBroker::startMember(const QString &directory,
                                                                    const Membership &membership)
{
    std::unique_ptr<EmbeddedBroker> broker(new EmbeddedBroker);
    broker->m_membership = membership;
    if (Status prepared = broker->prepare(directory, 0); !prepared)
        return prepared.error();
    // Nodes find each other through the epmd they share, and trust each
    // other by the cookie in their HOME.
    QFile cookie(QDir(directory).filePath(QStringLiteral(".erlang.cookie")));
    cookie.remove();
    if (!cookie.open(QIODevice::WriteOnly) || cookie.write(membership.cookie) < 0 ||
        !cookie.setPermissions(QFileDevice::ReadOwner))
        return makeError(ErrorKind::Environment,
                         QStringLiteral("cannot write %1").arg(cookie.fileName()));
    cookie.close();
    if (Status launched = broker->launch(); !launched)
        return launched.error();
    return broker;
}

Result<AmqpAddress> EmbeddedBroker::startDetached(const QString &directory)
{
    EmbeddedBroker broker;
    if (Status prepared = broker.prepare(directory, 0); !prepared)
        return prepared.error();
    if (Status launched = broker.launch(true); !launched)
        return launched.error();
    const AmqpAddress address = broker.address();
    broker.m_process.reset(); // it is not this object's to stop
    return address;
}

Status EmbeddedBroker::stopDirectory(const QString &directory)
{
    QFile state(QDir(directory).filePath(QStringLiteral("keel-broker")));
    if (!state.open(QIODevice::ReadOnly))
        return {}; // never started here
    const QList<QByteArray> fields = state.readAll().trimmed().split(' ');
    const QString epmdPort = fields.size() == 4 ? QString::fromLatin1(fields[3]) : QString();
    QFile pidFile(QDir(directory).filePath(QStringLiteral("pid")));
    if (pidFile.open(QIODevice::ReadOnly)) {
        const pid_t pid = pid_t(pidFile.readAll().trimmed().toLongLong());
        if (pid > 0 && ::kill(pid, SIGTERM) == 0) {
            QElapsedTimer timer;
            timer.start();
            while (::kill(pid, 0) == 0 && timer.elapsed() < 30000)
                QThread::msleep(100);
            if (::kill(pid, 0) == 0)
                ::kill(pid, SIGKILL);
        }
    }
    if (!epmdPort.isEmpty())
        stopEpmd(epmdPort);
    return {};
}

Status EmbeddedBroker::launch(bool detached, Wait wait)
{
    const QString config = QDir(m_directory).filePath(QStringLiteral("rabbitmq.conf"));
    if (Status written = writeConfig(config); !written)
        return written;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("HOME"), m_directory); // the Erlang cookie lives here
    environment.insert(QStringLiteral("RABBITMQ_NODENAME"), m_node);
    environment.insert(QStringLiteral("RABBITMQ_NODE_PORT"), QString::number(m_port));
    environment.insert(QStringLiteral("RABBITMQ_DIST_PORT"), QString::number(m_distPort));
    environment.insert(QStringLiteral("ERL_EPMD_PORT"), QString::number(m_epmdPort));
    environment.insert(QStringLiteral("RABBITMQ_MNESIA_BASE"),
                       m_directory + QStringLiteral("/mnesia"));
    environment.insert(QStringLiteral("RABBITMQ_LOG_BASE"), m_directory + QStringLiteral("/log"));
    environment.insert(QStringLiteral("RABBITMQ_CONFIG_FILE"), config);
    environment.insert(QStringLiteral("RABBITMQ_ENABLED_PLUGINS_FILE"),
                       m_directory + QStringLiteral("/enabled_plugins"));
    environment.insert(QStringLiteral("RABBITMQ_PID_FILE"), m_directory + QStringLiteral("/pid"));
    // The node shares its machine with PostgreSQL and keel; Erlang schedulers
    // that spin while idle take the CPU the relay's database work needs.
    environment.insert(QStringLiteral("RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS"),
                       QStringLiteral("+sbwt none +sbwtdcpu none +sbwtdio none"));
    QFile::remove(m_directory + QStringLiteral("/pid"));
    m_process = std::make_unique<QProcess>();
    m_process->setProcessEnvironment(environment);
    m_process->setStandardOutputFile(m_directory + QStringLiteral("/server.out"));
    m_process->setStandardErrorFile(m_directory + QStringLiteral("/server.out"));
    m_process->setProgram(ServerProgram);
    if (detached) {
        if (!m_process->startDetached())
            return makeError(ErrorKind::Environment,
                             QStringLiteral("cannot run %1").arg(ServerProgram));
        return waitUntilReady(StartTimeoutMs);
    }
    // Its own process group, so stopping it reaches every process it started;
    // no signals blocked (a caller waiting for Ctrl-C blocks them, and a
    // child would inherit that and never stop).
    m_process->setChildProcessModifier([] {
        ::setpgid(0, 0);
        // If this process dies, the server script is told to stop the node
        // (it traps TERM), as keel dev's PostgreSQL goes with it too.
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        sigset_t none;
        sigemptyset(&none);
        ::pthread_sigmask(SIG_SETMASK, &none, nullptr);
    });
    m_process->start();
    if (!m_process->waitForStarted(10000))
        return makeError(
            ErrorKind::Environment,
            QStringLiteral("cannot run %1: %2").arg(ServerProgram, m_process->errorString()));
    return wait == Wait::UntilReady ? waitUntilReady(StartTimeoutMs) : Status{};
}

Status EmbeddedBroker::writeConfig(const QString &path) const
{
    QFile config(path);
    if (!config.open(QIODevice::WriteOnly))
        return makeError(ErrorKind::Environment, QStringLiteral("cannot write %1").arg(path));
    QString text = QStringLiteral("listeners.tcp.default = 127.0.0.1:%1\n"
                                  "log.console = false\nlog.file.level = warning\n")
                       .arg(m_port);
    if (!m_membership.peers.isEmpty()) {
        text += QStringLiteral("cluster_formation.peer_discovery_backend = classic_config\n");
        for (qsizetype i = 0; i < m_membership.peers.size(); ++i)
            text += QStringLiteral("cluster_formation.classic_config.nodes.%1 = %2\n")
                        .arg(i + 1)
                        .arg(m_membership.peers[i]);
    }
    if (config.write(text.toLatin1()) < 0)
        return makeError(ErrorKind::Environment, QStringLiteral("cannot write %1").arg(path));
    return {};
}

void EmbeddedBroker::stopOwnEpmd() const
{
    if (m_membership.node.isEmpty())
        stopEpmd(QString::number(m_epmdPort));
}

Status EmbeddedBroker::waitUntilReady(int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    Status last;
    while (timer.elapsed() < timeoutMs) {
        if (m_process->processId() != 0 && m_process->state() == QProcess::NotRunning)
            return makeError(ErrorKind::Environment,
                             QStringLiteral("rabbitmq-server exited at start; see %1/server.out "
                                            "and %1/log")
                                 .arg(m_directory));
        AmqpPublisher probe(address(), QStringLiteral("amq.topic"));
        last = probe.connect(1000);
        if (last)
            return {};
        QThread::msleep(200);
    }
    return makeError(ErrorKind::Environment,
                     QStringLiteral("RabbitMQ did not take logins within %1 s (%2)")
                         .arg(timeoutMs / 1000)
                         .arg(last ? QString() : last.error().message));
}

EmbeddedBroker::~EmbeddedBroker()
{
    (void)stop();
}

AmqpAddress EmbeddedBroker::address() const
{
    AmqpAddress address;
    address.port = m_port;
    return address;
}

Status EmbeddedBroker::stop()
{
    if (!m_process || m_process->state() == QProcess::NotRunning) {
        m_process.reset();
        return {};
    }
    ::kill(-pid_t(m_process->processId()), SIGTERM);
    if (!m_process->waitForFinished(30000))
        kill();
    m_process.reset();
    stopOwnEpmd();
    return {};
}

Status EmbeddedBroker::restart()
{
    if (Status stopped = stop(); !stopped)
        return stopped;
    return launch();
}

void EmbeddedBroker::beginStop()
{
    if (m_process && m_process->state() != QProcess::NotRunning)
        ::kill(-pid_t(m_process->processId()), SIGTERM);
}

Result<bool> EmbeddedBroker::beginStart()
{
    if (m_process) {
        if (m_process->state() != QProcess::NotRunning && !m_process->waitForFinished(0))
            return false; // still shutting down
        m_process.reset();
        stopOwnEpmd();
    }
    if (Status launched = launch(false, Wait::No); !launched)
        return launched.error();
    return true;
}

Result<bool> EmbeddedBroker::ready()
{
    if (!m_process || (m_process->state() == QProcess::NotRunning || m_process->waitForFinished(0)))
        return makeError(
            ErrorKind::Environment,
            QStringLiteral("rabbitmq-server is not running; see %1/server.out").arg(m_directory));
    AmqpPublisher probe(address(), QStringLiteral("amq.topic"));
    return bool(probe.connect(1000));
}

void EmbeddedBroker::kill()
{
    // A process that has ended has no id, and kill(0) would be our own group.
    if (!m_process || m_process->state() == QProcess::NotRunning || m_process->processId() <= 0)
        return;
    ::kill(-pid_t(m_process->processId()), SIGKILL);
    m_process->waitForFinished(10000);
}

} // namespace keel
