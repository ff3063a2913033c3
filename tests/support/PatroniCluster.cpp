#include "PatroniCluster.h"

#include "core/db/LibpqConnection.h"
#include "core/net/HttpClient.h"
#include "core/net/LoopbackPort.h"
#include "devkit/servers/EmbeddedCluster.h"
#include "devkit/servers/ServerBinaries.h"
#include "devkit/servers/ServiceAccount.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QThread>

#include <algorithm>
#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace keel::test {
namespace {

constexpr int StartTimeoutMs = 180000;
constexpr int EtcdMembers = 3;
constexpr int PostgresMembers = 2;

QString program(const char *name)
{
    return QStandardPaths::findExecutable(QLatin1String(name));
}

// Its own process group, and SIGKILL for the whole group if the test dies,
// so nothing of a run outlives it.
void ownGroup()
{
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
}

QJsonArray clusterMembers(const QByteArray &json)
{
    return QJsonDocument::fromJson(json).object().value(QStringLiteral("members")).toArray();
}

} // namespace

bool PatroniCluster::available()
{
    return !program("patroni").isEmpty() && !program("etcd").isEmpty();
}

Result<std::unique_ptr<PatroniCluster>> PatroniCluster::start(const QString &directory,
                                                              bool readReplica)
{
    if (!available())
        return makeError(ErrorKind::Environment,
                         QStringLiteral("patroni and etcd are not installed (apt-get install "
                                        "patroni etcd-server etcd-client)"));
    std::unique_ptr<PatroniCluster> cluster(new PatroniCluster);
    cluster->m_directory = QDir(directory).filePath(QStringLiteral("patroni"));
    cluster->m_scope =
        QStringLiteral("keel%1").arg(QRandomGenerator::system()->bounded(1000000000u));
    Result<ServiceAccount> account = ServiceAccount::forServer();
    if (!account)
        return account.error();
    if (Status prepared = account->prepareDirectory(cluster->m_directory); !prepared)
        return prepared.error();
    if (Status etcd = cluster->startEtcd(); !etcd)
        return etcd.error();
    cluster->m_candidates = PostgresMembers;
    const int all = PostgresMembers + (readReplica ? 1 : 0);
    for (int i = 0; i < all; ++i) {
        cluster->m_pgPorts.push_back(bindLoopback());
        cluster->m_restPorts.push_back(bindLoopback());
    }
    // The first member bootstraps the cluster; the others are cloned from it.
    for (int i = 0; i < PostgresMembers; ++i) {
        if (Status config = cluster->writeMemberConfig(i, false); !config)
            return config.error();
        if (Status started = cluster->startMember(i); !started)
            return started.error();
        if (i == 0)
            if (Status led = cluster->waitUntil([&] { return cluster->leaderIndex() == 0; },
                                                StartTimeoutMs, QStringLiteral("a leader"));
                !led)
                return led.error();
    }
    PatroniCluster *self = cluster.get();
    if (Status healthy = cluster->waitUntil([self] { return self->synchronous(); }, StartTimeoutMs,
                                            QStringLiteral("a synchronous standby"));
        !healthy)
        return healthy.error();
    if (readReplica) {
        const int replica = PostgresMembers;
        if (Status config = cluster->writeMemberConfig(replica, true); !config)
            return config.error();
        if (Status started = cluster->startMember(replica); !started)
            return started.error();
        if (Status streaming = cluster->waitUntil(
                [self, replica] {
                    Result<LibpqConnection> session = LibpqConnection::open(
                        self->memberSettings(replica, QStringLiteral("postgres")));
                    if (!session)
                        return false;
                    Result<QString> recovering = session->scalar("SELECT pg_is_in_recovery()");
                    return recovering && *recovering == QLatin1String("t");
                },
                StartTimeoutMs, QStringLiteral("read replica"));
            !streaming)
            return streaming.error();
    }
    Result<LibpqConnection> leader =
        LibpqConnection::open(cluster->settings(QStringLiteral("postgres")));
    if (!leader)
        return leader.error();
    if (Status created = leader->exec("CREATE DATABASE keel"); !created)
        return created.error();
    return cluster;
}

PatroniCluster::~PatroniCluster()
{
    // Patroni stops its PostgreSQL on SIGTERM; etcd goes last.
    // (A process that is not running has no id: kill(0) would be this test's own group.)
    const auto signal = [](QProcess &process, int number) {
        if (process.state() != QProcess::NotRunning && process.processId() > 0)
            ::kill(-pid_t(process.processId()), number);
    };
    // A switchover's patronictl has usually ended; reaped here, or stopped.
    if (m_switchover && !m_switchover->waitForFinished(10000))
        m_switchover->kill();
    for (auto &member : m_patroni)
        signal(*member, SIGTERM);
    for (auto &member : m_patroni)
        if (!member->waitForFinished(30000))
            signal(*member, SIGKILL);
    for (int i = 0; i < int(m_pgPorts.size()); ++i)
        killPostmaster(i); // any a killed Patroni left behind
    for (auto &member : m_etcd) {
        signal(*member, SIGTERM);
        if (!member->waitForFinished(10000))
            signal(*member, SIGKILL);
    }
}

Status PatroniCluster::startEtcd()
{
    QStringList initial;
    for (int i = 0; i < EtcdMembers; ++i) {
        m_etcdClientPorts.push_back(bindLoopback());
        m_etcdPeerPorts.push_back(bindLoopback());
        initial << QStringLiteral("e%1=http://127.0.0.1:%2").arg(i).arg(m_etcdPeerPorts[i]);
    }
    for (int i = 0; i < EtcdMembers; ++i) {
        const QString client = QStringLiteral("http://127.0.0.1:%1").arg(m_etcdClientPorts[i]);
        const QString peer = QStringLiteral("http://127.0.0.1:%1").arg(m_etcdPeerPorts[i]);
        auto etcd = std::make_unique<QProcess>();
        etcd->setChildProcessModifier(ownGroup);
        const QString log = QDir(m_directory).filePath(QStringLiteral("etcd%1.log").arg(i));
        etcd->setStandardOutputFile(log);
        etcd->setStandardErrorFile(log);
        etcd->start(program("etcd"),
                    {QStringLiteral("--name"), QStringLiteral("e%1").arg(i),
                     QStringLiteral("--data-dir"),
                     QDir(m_directory).filePath(QStringLiteral("etcd%1").arg(i)),
                     QStringLiteral("--listen-client-urls"), client,
                     QStringLiteral("--advertise-client-urls"), client,
                     QStringLiteral("--listen-peer-urls"), peer,
                     QStringLiteral("--initial-advertise-peer-urls"), peer,
                     QStringLiteral("--initial-cluster"), initial.join(u','),
                     QStringLiteral("--initial-cluster-token"), m_scope,
                     QStringLiteral("--initial-cluster-state"), QStringLiteral("new")});
        if (!etcd->waitForStarted(10000))
            return makeError(ErrorKind::Environment,
                             QStringLiteral("cannot run etcd: %1").arg(etcd->errorString()));
        m_etcd.push_back(std::move(etcd));
    }
    return waitUntil(
        [this] {
            HttpClient client(QStringLiteral("127.0.0.1"), m_etcdClientPorts[0], 2000);
            const HttpReply health = client.request("GET", "/health");
            return health.status == 200 && health.body.contains("\"true\"");
        },
        60000, QStringLiteral("etcd"));
}

QString PatroniCluster::memberName(int index) const
{
    return QStringLiteral("pg%1").arg(index);
}

Status PatroniCluster::writeMemberConfig(int index, bool readReplica) const
{
    Result<ServerBinaries> binaries = ServerBinaries::locate();
    Result<ServiceAccount> account = ServiceAccount::forServer();
    if (!binaries || !account)
        return !binaries ? binaries.error() : account.error();
    QStringList etcdHosts;
    for (const int port : m_etcdClientPorts)
        etcdHosts << QStringLiteral("127.0.0.1:%1").arg(port);
    const QString member = QDir(m_directory).filePath(memberName(index));
    // Failure detection tuned to seconds, as the pg_auto_failover formation's
    // is: loop_wait + 2 * retry_timeout stays within the leader key's ttl.
    const QString yaml =
        QStringLiteral("scope: %1\n"
                       "name: %2\n"
                       "restapi:\n  listen: 127.0.0.1:%3\n  connect_address: 127.0.0.1:%3\n"
                       "etcd3:\n  hosts: %4\n"
                       "bootstrap:\n"
                       "  dcs:\n"
                       "    ttl: 20\n    loop_wait: 2\n    retry_timeout: 5\n"
                       "    synchronous_mode: true\n    synchronous_mode_strict: true\n"
                       "    postgresql:\n"
                       "      use_pg_rewind: true\n"
                       "      parameters:\n"
                       "        wal_log_hints: 'on'\n        max_wal_senders: 10\n"
                       "        max_replication_slots: 10\n        fsync: 'on'\n"
                       "  initdb:\n  - encoding: UTF8\n  - locale: C\n"
                       "  pg_hba:\n"
                       "  - host replication all 127.0.0.1/32 trust\n"
                       "  - host all all 127.0.0.1/32 trust\n"
                       "  - local all all trust\n"
                       "postgresql:\n"
                       "  listen: 127.0.0.1:%5\n  connect_address: 127.0.0.1:%5\n"
                       "  data_dir: %6/data\n  bin_dir: %7\n  pgpass: %6/pgpass\n"
                       "  authentication:\n"
                       "    superuser:\n      username: %8\n      password: unused\n"
                       "    replication:\n      username: %8\n      password: unused\n"
                       "  parameters:\n    unix_socket_directories: '%6'\n"
                       "tags:\n  nofailover: %9\n  nosync: %9\n  noloadbalance: false\n")
            .arg(m_scope, memberName(index))
            .arg(m_restPorts[size_t(index)])
            .arg(etcdHosts.join(u','))
            .arg(m_pgPorts[size_t(index)])
            .arg(member, binaries->directory(), account->name(),
                 readReplica ? QStringLiteral("true") : QStringLiteral("false"));
    QFile config(member + QStringLiteral(".yml"));
    if (!config.open(QIODevice::WriteOnly) || config.write(yaml.toUtf8()) < 0)
        return makeError(ErrorKind::Environment,
                         QStringLiteral("cannot write %1").arg(config.fileName()));
    config.close();
    return account->prepareDirectory(member);
}

Status PatroniCluster::startMember(int index)
{
    Result<ServiceAccount> account = ServiceAccount::forServer();
    if (!account)
        return account.error();
    auto patroni = std::make_unique<QProcess>();
    QProcessEnvironment environment = EmbeddedCluster::programEnvironment();
    environment.insert(QStringLiteral("HOME"), m_directory);
    patroni->setProcessEnvironment(environment);
    patroni->setWorkingDirectory(m_directory);
    const QString member = QDir(m_directory).filePath(memberName(index));
    patroni->setStandardOutputFile(member + QStringLiteral(".log"), QIODevice::Append);
    patroni->setStandardErrorFile(member + QStringLiteral(".log"), QIODevice::Append);
    const ServiceAccount who = *account;
    patroni->setChildProcessModifier([who] {
        ::setpgid(0, 0);
        who.enterInChild(SIGKILL);
    });
    patroni->start(program("patroni"), {member + QStringLiteral(".yml")});
    if (!patroni->waitForStarted(10000))
        return makeError(ErrorKind::Environment,
                         QStringLiteral("cannot run patroni: %1").arg(patroni->errorString()));
    if (size_t(index) < m_patroni.size())
        m_patroni[size_t(index)] = std::move(patroni);
    else
        m_patroni.push_back(std::move(patroni));
    return {};
}

Status PatroniCluster::waitUntil(const std::function<bool()> &condition, int timeoutMs,
                                 const QString &what) const
{
    QElapsedTimer timer;
    timer.start();
    while (!condition()) {
        if (timer.elapsed() > timeoutMs)
            return makeError(ErrorKind::Environment,
                             QStringLiteral("Patroni's cluster has no %1 after %2 s; see the logs "
                                            "in %3")
                                 .arg(what)
                                 .arg(timeoutMs / 1000)
                                 .arg(m_directory));
        QThread::msleep(500);
    }
    return {};
}

Result<QByteArray> PatroniCluster::restGet(int index, const QString &path) const
{
    HttpClient client(QStringLiteral("127.0.0.1"), m_restPorts[size_t(index)], 3000);
    const HttpReply reply = client.request("GET", path.toUtf8());
    if (reply.status != 200)
        return makeError(ErrorKind::Connection, QStringLiteral("Patroni %1 answered %2 %3")
                                                    .arg(memberName(index))
                                                    .arg(reply.status)
                                                    .arg(reply.error));
    return reply.body;
}

int PatroniCluster::leaderIndex() const
{
    for (int i = 0; i < members(); ++i) {
        Result<QByteArray> cluster = restGet(i, QStringLiteral("/cluster"));
        if (!cluster)
            continue;
        for (const QJsonValue &member : clusterMembers(*cluster)) {
            const QJsonObject object = member.toObject();
            if (object.value(QStringLiteral("role")).toString() == QLatin1String("leader") &&
                object.value(QStringLiteral("state")).toString() == QLatin1String("running"))
                for (int j = 0; j < members(); ++j)
                    if (object.value(QStringLiteral("name")).toString() == memberName(j))
                        return j;
        }
        return -1;
    }
    return -1;
}

bool PatroniCluster::healthy()
{
    if (leaderIndex() < 0)
        return false;
    Result<QByteArray> cluster = restGet(leaderIndex(), QStringLiteral("/cluster"));
    if (!cluster)
        return false;
    bool standby = false;
    for (const QJsonValue &member : clusterMembers(*cluster)) {
        const QJsonObject object = member.toObject();
        const QString state = object.value(QStringLiteral("state")).toString();
        standby =
            standby ||
            (object.value(QStringLiteral("role")).toString() == QLatin1String("sync_standby") &&
             (state == QLatin1String("streaming") || state == QLatin1String("running")));
    }
    return standby;
}

ConnectionSettings PatroniCluster::settings(const QString &database) const
{
    return multiHostSettings({m_pgPorts.begin(), m_pgPorts.begin() + m_candidates}, database);
}

QString PatroniCluster::replicaName() const
{
    return int(m_pgPorts.size()) == m_candidates ? QString() : memberName(m_candidates);
}

std::optional<ConnectionSettings> PatroniCluster::replicaSettings(const QString &database) const
{
    if (int(m_pgPorts.size()) == m_candidates)
        return std::nullopt;
    return memberSettings(m_candidates, database);
}

ConnectionSettings PatroniCluster::memberSettings(int index, const QString &database) const
{
    ConnectionSettings settings;
    settings.set(QStringLiteral("host"), QStringLiteral("127.0.0.1"));
    settings.set(QStringLiteral("port"), QString::number(m_pgPorts[size_t(index)]));
    settings.set(QStringLiteral("dbname"), database);
    if (Result<ServiceAccount> account = ServiceAccount::forServer(); account)
        settings.set(QStringLiteral("user"), account->name());
    settings.set(QStringLiteral("connect_timeout"), QStringLiteral("3"));
    return settings;
}

std::unique_ptr<QProcess> PatroniCluster::startSwitchover(int leader, int candidate,
                                                          const QString &log, bool asFailover) const
{
    auto control = std::make_unique<QProcess>();
    if (!log.isEmpty()) {
        control->setStandardOutputFile(log, QIODevice::Append);
        control->setStandardErrorFile(log, QIODevice::Append);
    }
    QProcessEnvironment environment = EmbeddedCluster::programEnvironment();
    environment.insert(QStringLiteral("HOME"), m_directory);
    control->setProcessEnvironment(environment);
    // A manual failover names only the member to promote; with a healthy
    // leader Patroni hands over as in a switchover.
    QStringList arguments{QStringLiteral("-c"),
                          QDir(m_directory).filePath(memberName(leader) + QStringLiteral(".yml")),
                          asFailover ? QStringLiteral("failover") : QStringLiteral("switchover")};
    if (!asFailover)
        arguments << QStringLiteral("--leader") << memberName(leader);
    arguments << QStringLiteral("--candidate") << memberName(candidate) << QStringLiteral("--force")
              << m_scope;
    control->start(program("patronictl"), arguments);
    return control;
}

Status PatroniCluster::switchover()
{
    const int leader = leaderIndex();
    if (leader < 0)
        return makeError(ErrorKind::Environment, QStringLiteral("Patroni's cluster has no leader"));
    const int candidate = (leader + 1) % members();
    const std::unique_ptr<QProcess> control = startSwitchover(leader, candidate);
    if (!control->waitForFinished(60000) || control->exitCode() != 0)
        return makeError(ErrorKind::Environment,
                         QStringLiteral("patronictl switchover failed: %1")
                             .arg(QString::fromLocal8Bit(control->readAllStandardOutput() +
                                                         control->readAllStandardError())
                                      .trimmed()));
    return waitUntil([this, candidate] { return leaderIndex() == candidate; }, 60000,
                     QStringLiteral("new leader"));
}

Result<int> PatroniCluster::beginSwitchover(bool manualFailover)
{
    if (m_switchover && m_switchover->state() != QProcess::NotRunning &&
        !m_switchover->waitForFinished(0))
        return makeError(ErrorKind::Environment,
                         QStringLiteral("the last patronictl switchover is still running"));
    const int leader = leaderIndex();
    if (leader < 0)
        return makeError(ErrorKind::Environment, QStringLiteral("Patroni's cluster has no leader"));
    m_switchover = startSwitchover(leader, (leader + 1) % members(),
                                   QDir(m_directory).filePath(QStringLiteral("switchover.log")),
                                   manualFailover);
    if (!m_switchover->waitForStarted(10000))
        return makeError(
            ErrorKind::Environment,
            QStringLiteral("cannot start patronictl: %1").arg(m_switchover->errorString()));
    ++m_failovers;
    return m_pgPorts[size_t(leader)];
}

Result<int> PatroniCluster::crashLeader()
{
    const int leader = leaderIndex();
    if (leader < 0)
        return makeError(ErrorKind::Environment, QStringLiteral("Patroni's cluster has no leader"));
    // Patroni's group holds it and the PostgreSQL it started: a machine dying.
    QProcess &patroni = *m_patroni[size_t(leader)];
    if (patroni.state() != QProcess::NotRunning && patroni.processId() > 0)
        ::kill(-pid_t(patroni.processId()), SIGKILL);
    patroni.waitForFinished(10000);
    killPostmaster(leader);
    return leader;
}

void PatroniCluster::killPostmaster(int index) const
{
    // The postmaster may sit in a session of its own; its pid file names it.
    // A crash leaves the file behind, so the pid is believed only while its
    // command line still names this member's data directory.
    const QString data = QDir(m_directory).filePath(memberName(index) + QStringLiteral("/data"));
    QFile pid(data + QStringLiteral("/postmaster.pid"));
    if (!pid.open(QIODevice::ReadOnly))
        return;
    const pid_t postmaster = pid_t(pid.readLine().trimmed().toLongLong());
    QFile command(QStringLiteral("/proc/%1/cmdline").arg(postmaster));
    if (postmaster <= 0 || !command.open(QIODevice::ReadOnly) ||
        !command.readAll().contains(data.toUtf8()))
        return;
    // Its backends go with it, as on a machine that died.
    ::kill(::getpgid(postmaster) == postmaster ? -postmaster : postmaster, SIGKILL);
}

Status PatroniCluster::restartMember(int index)
{
    return startMember(index);
}

} // namespace keel::test

namespace keel::test {

int PatroniCluster::indexOfPort(int port) const
{
    for (int i = 0; i < members(); ++i)
        if (m_pgPorts[size_t(i)] == port)
            return i;
    return -1;
}

ConnectionSettings PatroniCluster::nodeSettings(int port, const QString &database) const
{
    return memberSettings(std::max(0, indexOfPort(port)), database);
}

Result<int> PatroniCluster::crashPrimary()
{
    Result<int> leader = crashLeader();
    if (!leader)
        return leader.error();
    m_taken.insert(*leader);
    ++m_failovers;
    return m_pgPorts[size_t(*leader)];
}

Result<int> PatroniCluster::shutDownPrimary()
{
    const int leader = leaderIndex();
    if (leader < 0)
        return makeError(ErrorKind::Environment, QStringLiteral("Patroni's cluster has no leader"));
    QProcess &patroni = *m_patroni[size_t(leader)];
    if (patroni.state() == QProcess::NotRunning || patroni.processId() <= 0)
        return makeError(ErrorKind::Environment,
                         QStringLiteral("the leader's Patroni is not running"));
    ::kill(pid_t(patroni.processId()), SIGTERM);
    m_taken.insert(leader);
    ++m_failovers;
    return m_pgPorts[size_t(leader)];
}

Status PatroniCluster::restartNode(int port)
{
    const int index = indexOfPort(port);
    if (index < 0)
        return makeError(ErrorKind::Usage, QStringLiteral("no member on port %1").arg(port));
    QProcess &patroni = *m_patroni[size_t(index)];
    if (patroni.state() != QProcess::NotRunning && !patroni.waitForFinished(0))
        return makeError(ErrorKind::Environment,
                         QStringLiteral("%1 is still stopping").arg(memberName(index)));
    if (Status started = startMember(index); !started)
        return started;
    m_taken.remove(index);
    return {};
}

bool PatroniCluster::synchronous()
{
    const int leader = leaderIndex();
    if (leader < 0 || !healthy())
        return false;
    return replicatesSynchronously(memberSettings(leader, QStringLiteral("postgres")));
}

int PatroniCluster::primaryPort()
{
    const int leader = leaderIndex();
    return leader < 0 ? 0 : m_pgPorts[size_t(leader)];
}

bool PatroniCluster::supervisorsRunning() const
{
    for (int i = 0; i < members(); ++i)
        if (!m_taken.contains(i) && m_patroni[size_t(i)]->state() == QProcess::NotRunning)
            return false;
    return true;
}

QList<HaFormation::Node> PatroniCluster::nodes()
{
    QJsonArray seen;
    for (int i = 0; i < members() && seen.isEmpty(); ++i)
        if (Result<QByteArray> cluster = restGet(i, QStringLiteral("/cluster")))
            seen = clusterMembers(*cluster);
    QList<Node> all;
    for (int i = 0; i < members(); ++i) {
        Node node;
        node.name = memberName(i);
        node.port = m_pgPorts[size_t(i)];
        for (const QJsonValue &member : std::as_const(seen)) {
            const QJsonObject object = member.toObject();
            if (object.value(QStringLiteral("name")).toString() == node.name)
                node.reportedState = object.value(QStringLiteral("role")).toString() + u'/' +
                                     object.value(QStringLiteral("state")).toString();
        }
        node.keeperRunning = m_patroni[size_t(i)]->state() != QProcess::NotRunning;
        if (Result<LibpqConnection> session =
                LibpqConnection::open(memberSettings(i, QStringLiteral("postgres")))) {
            node.reachable = true;
            Result<QString> recovery = session->scalar("SELECT pg_is_in_recovery()");
            node.writable = recovery && *recovery == QLatin1String("f");
        }
        all.append(node);
    }
    return all;
}

} // namespace keel::test
