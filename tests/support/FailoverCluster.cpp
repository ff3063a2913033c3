#include "FailoverCluster.h"

#include "core/db/LibpqConnection.h"
#include "core/net/LoopbackPort.h"
#include "devkit/servers/EmbeddedCluster.h"
#include "devkit/servers/ServerBinaries.h"
#include "devkit/servers/ServiceAccount.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QThread>

#include <algorithm>
#include <csignal>
#include <unistd.h>

namespace keel::test {
namespace {

constexpr int StartTimeoutMs = 120000;

QString autoctlProgram()
{
    return QStandardPaths::findExecutable(QStringLiteral("pg_autoctl"));
}

} // namespace

bool FailoverCluster::available()
{
    return !autoctlProgram().isEmpty();
}

Result<std::unique_ptr<FailoverCluster>> FailoverCluster::start(const QString &directory)
{
    std::unique_ptr<FailoverCluster> cluster(new FailoverCluster);
    cluster->m_directory = QDir(directory).filePath(QStringLiteral("failover"));
    Result<ServiceAccount> account = ServiceAccount::forServer();
    if (!account)
        return account.error();
    if (Status prepared = account->prepareDirectory(cluster->m_directory); !prepared)
        return prepared.error();
    if (Status monitor = cluster->createMonitor(); !monitor)
        return monitor.error();
    if (Status tuned = cluster->tuneMonitor(); !tuned)
        return tuned.error();
    for (const char *name : {"node_a", "node_b"})
        if (Status node = cluster->createNode(QLatin1String(name), bindLoopback()); !node)
            return node.error();
    if (Status healthy = cluster->waitUntilHealthy(StartTimeoutMs); !healthy)
        return healthy.error();
    return cluster;
}

FailoverCluster::~FailoverCluster()
{
    // Nodes first, the monitor last; pg_autoctl stops its PostgreSQL on SIGTERM.
    for (auto it = m_services.rbegin(); it != m_services.rend(); ++it) {
        (*it)->terminate();
        if (!(*it)->waitForFinished(20000)) {
            (*it)->kill();
            (*it)->waitForFinished(5000);
        }
    }
    Result<ServerBinaries> binaries = ServerBinaries::locate();
    Result<ServiceAccount> account = ServiceAccount::forServer();
    if (!binaries || !account)
        return;
    for (const char *data : {"node_b", "node_a", "monitor"}) {
        QProcess stop; // whatever the supervisors left running
        const ServiceAccount who = *account;
        stop.setChildProcessModifier([who] { who.enterInChild(0); });
        stop.start(binaries->program(QStringLiteral("pg_ctl")),
                   {QStringLiteral("stop"), QStringLiteral("-m"), QStringLiteral("immediate"),
                    QStringLiteral("-D"), QDir(m_directory).filePath(QLatin1String(data))});
        stop.waitForFinished(20000);
    }
}

std::unique_ptr<QProcess> FailoverCluster::autoctl(const QStringList &arguments, const QString &log)
{
    auto process = std::make_unique<QProcess>();
    QProcessEnvironment environment = EmbeddedCluster::programEnvironment();
    // pg_autoctl keeps its configuration and state under XDG directories:
    // give it ones inside the run's directory, never the account's home.
    for (const char *variable : {"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_RUNTIME_DIR"})
        environment.insert(QLatin1String(variable), m_directory);
    if (Result<ServerBinaries> binaries = ServerBinaries::locate(); binaries)
        environment.insert(QStringLiteral("PATH"), binaries->directory() + u':' +
                                                       environment.value(QStringLiteral("PATH")));
    process->setProcessEnvironment(environment);
    process->setWorkingDirectory(m_directory);
    process->setStandardOutputFile(log, QIODevice::Append);
    process->setStandardErrorFile(log, QIODevice::Append);
    if (Result<ServiceAccount> account = ServiceAccount::forServer(); account) {
        const ServiceAccount who = *account;
        process->setChildProcessModifier([who] {
            // A supervisor whose services outlive its grace signals its own
            // process group, assuming it leads one. Sharing this process's
            // group, one node's shutdown took the monitor, the other node
            // and keel's services down with it (CI, seed 1796515621590).
            ::setpgid(0, 0);
            who.enterInChild(SIGTERM);
        });
    }
    process->start(autoctlProgram(), arguments);
    return process;
}

Status FailoverCluster::createMonitor()
{
    m_monitorPort = bindLoopback();
    Result<ServerBinaries> binaries = ServerBinaries::locate();
    if (!binaries)
        return binaries.error();
    m_services.push_back(
        autoctl({QStringLiteral("create"), QStringLiteral("monitor"), QStringLiteral("--pgdata"),
                 QDir(m_directory).filePath(QStringLiteral("monitor")), QStringLiteral("--pgport"),
                 QString::number(m_monitorPort), QStringLiteral("--hostname"),
                 QStringLiteral("127.0.0.1"), QStringLiteral("--auth"), QStringLiteral("trust"),
                 QStringLiteral("--no-ssl"), QStringLiteral("--pgctl"),
                 binaries->program(QStringLiteral("pg_ctl")), QStringLiteral("--run")},
                QDir(m_directory).filePath(QStringLiteral("monitor.log"))));
    QElapsedTimer timer;
    timer.start();
    while (!askMonitor("SELECT count(*) FROM pgautofailover.formation")) {
        if (timer.elapsed() > StartTimeoutMs || m_services.back()->state() == QProcess::NotRunning)
            return makeError(ErrorKind::Environment,
                             QStringLiteral("the pg_auto_failover monitor did not start; see %1")
                                 .arg(QDir(m_directory).filePath(QStringLiteral("monitor.log"))));
        QThread::msleep(500);
    }
    return {};
}

Status FailoverCluster::createNode(const QString &name, int port)
{
    Result<ServerBinaries> binaries = ServerBinaries::locate();
    Result<ServiceAccount> account = ServiceAccount::forServer();
    if (!binaries || !account)
        return !binaries ? binaries.error() : account.error();
    const QString monitor =
        QStringLiteral("postgres://autoctl_node@127.0.0.1:%1/pg_auto_failover?sslmode=disable")
            .arg(m_monitorPort);
    m_nodePorts.push_back(port);
    m_nodeNames.push_back(name);
    m_services.push_back(autoctl({QStringLiteral("create"),
                                  QStringLiteral("postgres"),
                                  QStringLiteral("--pgdata"),
                                  QDir(m_directory).filePath(name),
                                  QStringLiteral("--pgport"),
                                  QString::number(port),
                                  QStringLiteral("--hostname"),
                                  QStringLiteral("127.0.0.1"),
                                  QStringLiteral("--name"),
                                  name,
                                  QStringLiteral("--dbname"),
                                  QStringLiteral("keel"),
                                  QStringLiteral("--username"),
                                  account->name(),
                                  QStringLiteral("--auth"),
                                  QStringLiteral("trust"),
                                  QStringLiteral("--no-ssl"),
                                  QStringLiteral("--pgctl"),
                                  binaries->program(QStringLiteral("pg_ctl")),
                                  QStringLiteral("--monitor"),
                                  monitor,
                                  QStringLiteral("--run")},
                                 QDir(m_directory).filePath(name + QStringLiteral(".log"))));
    // The first node must be primary before the second asks to follow it.
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < StartTimeoutMs) {
        Result<QString> registered = askMonitor(
            "SELECT count(*) FROM pgautofailover.node WHERE nodename = '" + name.toUtf8() +
            "' AND reportedstate IN ('single', 'wait_primary', 'primary', 'catchingup', "
            "'wait_standby', 'secondary')");
        if (registered && *registered == QLatin1String("1"))
            return {};
        QThread::msleep(500);
    }
    return makeError(ErrorKind::Environment,
                     QStringLiteral("pg_auto_failover node %1 did not register").arg(name));
}

Status FailoverCluster::waitUntilHealthy(int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (!healthy()) {
        if (timer.elapsed() > timeoutMs)
            return makeError(ErrorKind::Environment,
                             QStringLiteral("the pg_auto_failover formation did not become "
                                            "healthy; see the logs in %1")
                                 .arg(m_directory));
        // pg_basebackup waits for a checkpoint; a spread one takes minutes.
        if (Result<LibpqConnection> primary =
                LibpqConnection::open(settings(QStringLiteral("keel"))))
            (void)primary->exec("CHECKPOINT");
        QThread::msleep(1000);
    }
    return {};
}

ConnectionSettings FailoverCluster::settings(const QString &database) const
{
    return multiHostSettings(m_nodePorts, database);
}

ConnectionSettings FailoverCluster::monitorSettings() const
{
    ConnectionSettings monitor;
    monitor.set(QStringLiteral("host"), QStringLiteral("127.0.0.1"));
    monitor.set(QStringLiteral("port"), QString::number(m_monitorPort));
    monitor.set(QStringLiteral("dbname"), QStringLiteral("pg_auto_failover"));
    if (Result<ServiceAccount> account = ServiceAccount::forServer(); account)
        monitor.set(QStringLiteral("user"), account->name());
    monitor.set(QStringLiteral("connect_timeout"), QStringLiteral("3"));
    return monitor;
}

Result<QString> FailoverCluster::askMonitor(const QByteArray &sql)
{
    Result<LibpqConnection> connection = LibpqConnection::open(monitorSettings());
    if (!connection)
        return connection.error();
    return connection->scalar(sql);
}

bool FailoverCluster::healthy()
{
    if (!m_crashed.isEmpty())
        return false; // the monitor may not have noticed yet
    Result<QString> settled =
        askMonitor("SELECT count(*) FROM pgautofailover.node WHERE reportedstate = goalstate AND "
                   "reportedstate IN ('primary', 'secondary')");
    return settled && *settled == QLatin1String("2");
}

bool FailoverCluster::synchronous()
{
    if (!healthy())
        return false;
    const int port = primaryPort();
    if (port == 0)
        return false;
    return replicatesSynchronously(nodeSettings(port, QStringLiteral("postgres")));
}

int FailoverCluster::primaryPort()
{
    Result<QString> port =
        // A crashed primary still reads "primary" (it reports nothing more)
        // but is meant to be demoted; the promoted node may be alone, in
        // wait_primary.
        askMonitor("SELECT nodeport FROM pgautofailover.node WHERE reportedstate = goalstate "
                   "AND reportedstate IN ('primary', 'wait_primary', 'single')");
    return port ? port->toInt() : 0;
}

bool FailoverCluster::supervisorsRunning() const
{
    for (std::size_t i = 0; i < m_services.size(); ++i)
        if (m_services[i]->state() == QProcess::NotRunning && !m_crashed.contains(int(i)))
            return false;
    return true;
}

QList<FailoverCluster::Node> FailoverCluster::nodes()
{
    QList<Node> nodes;
    for (std::size_t i = 0; i < m_nodePorts.size(); ++i) {
        const int port = m_nodePorts[i];
        Node node;
        node.port = port;
        // m_services holds the monitor first, then the nodes in m_nodePorts' order.
        node.keeperRunning = m_services.at(i + 1)->state() != QProcess::NotRunning;
        Result<QString> states = askMonitor(
            "SELECT nodename || ' ' || reportedstate || ' ' || goalstate FROM pgautofailover.node "
            "WHERE nodeport = " +
            QByteArray::number(port));
        if (states) {
            const QStringList parts = states->split(u' ');
            if (parts.size() == 3) {
                node.name = parts[0];
                node.reportedState = parts[1];
                node.goalState = parts[2];
            }
        }
        if (Result<LibpqConnection> direct =
                LibpqConnection::open(nodeSettings(port, QStringLiteral("postgres")))) {
            Result<QString> recovering = direct->scalar("SELECT pg_is_in_recovery()");
            node.reachable = bool(recovering);
            node.writable = recovering && *recovering == QLatin1String("f");
        }
        nodes.append(node);
    }
    return nodes;
}

ConnectionSettings FailoverCluster::nodeSettings(int port, const QString &database) const
{
    ConnectionSettings settings = this->settings(database);
    settings.set(QStringLiteral("host"), QStringLiteral("127.0.0.1"));
    settings.set(QStringLiteral("port"), QString::number(port));
    settings.set(QStringLiteral("target_session_attrs"), QStringLiteral("any"));
    return settings;
}

// Seconds rather than the defaults' tens of seconds to notice a dead node.
// A primary that cannot be reached is given 5 s to demote before the
// secondary is promoted: its keeper is dead too, so nothing answers anyway.
Status FailoverCluster::tuneMonitor()
{
    Result<LibpqConnection> monitor = LibpqConnection::open(monitorSettings());
    if (!monitor)
        return monitor.error();
    for (const char *setting :
         {"pgautofailover.health_check_period = 1000", "pgautofailover.health_check_timeout = 1000",
          "pgautofailover.health_check_retry_delay = 500",
          "pgautofailover.node_considered_unhealthy_timeout = 3000",
          "pgautofailover.primary_demote_timeout = 5000"})
        if (Status set = monitor->exec(QByteArray("ALTER SYSTEM SET ") + setting); !set)
            return set;
    return statusOf(monitor->scalar("SELECT pg_reload_conf()"));
}

namespace {

// Every process whose parent is `parent`.
QList<pid_t> childrenOf(pid_t parent)
{
    QList<pid_t> children;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &entry : entries) {
        bool numeric = false;
        const pid_t pid = entry.toInt(&numeric);
        if (!numeric)
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        // pid (comm) state ppid ...: the command may hold spaces, its ')' ends it.
        const QByteArray line = stat.readAll();
        const QList<QByteArray> fields = line.mid(line.lastIndexOf(')') + 2).split(' ');
        if (fields.size() > 1 && fields[1].toInt() == parent)
            children << pid;
    }
    return children;
}

// The process and everything under it, SIGKILLed from the top so that no
// supervisor restarts what was just killed.
void killTree(pid_t root)
{
    const QList<pid_t> children = childrenOf(root);
    ::kill(root, SIGKILL);
    for (const pid_t child : children)
        killTree(child);
}

} // namespace

Result<std::size_t> FailoverCluster::primaryIndex()
{
    if (!m_crashed.isEmpty())
        return makeError(ErrorKind::Failed, QStringLiteral("a stopped node is not back yet"));
    const int port = primaryPort();
    const auto found = std::find(m_nodePorts.cbegin(), m_nodePorts.cend(), port);
    if (found == m_nodePorts.cend())
        return makeError(ErrorKind::Failed, QStringLiteral("no node is primary"));
    return std::size_t(found - m_nodePorts.cbegin());
}

Result<int> FailoverCluster::beginSwitchover(bool)
{
    return makeError(ErrorKind::Usage,
                     QStringLiteral("pg_autoctl perform switchover turns synchronous replication "
                                    "off mid-switchover (docs/findings.md): not done under load"));
}

Result<int> FailoverCluster::shutDownPrimary()
{
    Result<std::size_t> primary = primaryIndex();
    if (!primary)
        return primary.error();
    const std::size_t index = *primary;
    QProcess &keeper = *m_services.at(index + 1);
    keeper.terminate();
    if (!keeper.waitForFinished(30000))
        killTree(pid_t(keeper.processId()));
    keeper.waitForFinished(5000);
    m_crashed.insert(int(index + 1));
    ++m_failovers;
    return m_nodePorts.at(index);
}

Result<int> FailoverCluster::crashPrimary()
{
    Result<std::size_t> primary = primaryIndex();
    if (!primary)
        return primary.error();
    const std::size_t index = *primary;
    const int port = m_nodePorts.at(index);
    QProcess &keeper = *m_services.at(index + 1);
    // The keeper first (its supervisor would restart PostgreSQL), then the
    // postmaster and its backends, wherever they hang.
    if (keeper.state() != QProcess::NotRunning)
        killTree(pid_t(keeper.processId()));
    keeper.waitForFinished(5000);
    m_crashed.insert(int(index + 1));
    QFile pidFile(
        QDir(m_directory).filePath(m_nodeNames.at(index) + QStringLiteral("/postmaster.pid")));
    if (pidFile.open(QIODevice::ReadOnly))
        if (const pid_t postmaster = pid_t(pidFile.readLine().trimmed().toInt()); postmaster > 0)
            killTree(postmaster);
    ++m_failovers;
    return port;
}

Status FailoverCluster::restartNode(int port)
{
    const auto found = std::find(m_nodePorts.cbegin(), m_nodePorts.cend(), port);
    if (found == m_nodePorts.cend())
        return makeError(ErrorKind::Usage, QStringLiteral("no node on port %1").arg(port));
    const std::size_t index = std::size_t(found - m_nodePorts.cbegin());
    const QString name = m_nodeNames.at(index);
    m_services.at(index + 1) = autoctl(
        {QStringLiteral("run"), QStringLiteral("--pgdata"), QDir(m_directory).filePath(name)},
        QDir(m_directory).filePath(name + QStringLiteral(".log")));
    m_crashed.remove(int(index + 1));
    if (!m_services.at(index + 1)->waitForStarted(10000))
        return makeError(ErrorKind::Environment,
                         QStringLiteral("pg_autoctl run for %1 did not start").arg(name));
    return {};
}

Status FailoverCluster::failOver()
{
    Result<QString> done = askMonitor("SELECT pgautofailover.perform_failover('default', 0)");
    if (!done)
        return done.error();
    ++m_failovers;
    return {};
}

} // namespace keel::test
