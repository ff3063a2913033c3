#include "ChaosRun.h"

#include "ChaosClient.h"
#include "ChaosHistory.h"
#include "ChaosWorld.h"
#include "EndChecks.h"
#include "FailoverCluster.h"
#include "InboxConsumer.h"
#include "KeelProcess.h"
#include "OperatorDesk.h"
#include "ReplicaWatch.h"
#include "SimulateRecord.h"
#include "TestParticipant.h"

#include "core/db/LibpqConnection.h"
#include "devkit/servers/EmbeddedCluster.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QThread>

#include <algorithm>

namespace keel::chaos {
namespace {

constexpr int HangMs = 3000; // beyond the 2 s step timeout the sagas use

test::TestParticipant::Behaviour participantFault(const Fault &fault, int callsSoFar)
{
    test::TestParticipant::Behaviour behaviour;
    const int until = callsSoFar + fault.count;
    if (fault.kind == Fault::Kind::ParticipantHangs) {
        behaviour.delayMs = HangMs;
        behaviour.delayTimes = until;
    } else if (fault.kind == Fault::Kind::ParticipantRepeats) {
        behaviour.repeatTimes = until;
    } else {
        behaviour.failStatus = fault.kind == Fault::Kind::ParticipantFails ? 503 : 409;
        behaviour.failTimes = until;
    }
    return behaviour;
}

} // namespace

ChaosRun::ChaosRun(RunOptions options, QTextStream &out) : m_options(std::move(options)), m_out(out)
{}

ChaosRun::~ChaosRun()
{
    m_consumer.reset();
    m_world.reset();
}

int ChaosRun::run()
{
    m_sinceStart.start();
    m_out << "chaos: seed " << m_options.seed << ", " << m_options.seconds
          << " s of load; replay with --seed " << m_options.seed << " --seconds "
          << m_options.seconds << Qt::endl;
    auto world = ChaosWorld::start(m_options.directory,
                                   {m_options.failover, m_options.patroni, m_options.protocol,
                                    m_options.brokerCluster, m_options.replica});
    if (!world) {
        m_out << "chaos: could not start: " << world.error().message << Qt::endl;
        return 2;
    }
    m_world = std::move(world).value();
    m_consumer = std::make_unique<InboxConsumer>(m_world->brokerAddresses(), m_world->exchange(),
                                                 m_world->settings());
    if (!m_consumer->start()) {
        m_out << "chaos: the inbox consumer could not declare its queue" << Qt::endl;
        return 2;
    }
    m_faults = planFaults(m_options.seed, m_options.seconds, m_world->processNames(),
                          m_options.failover, m_world->brokerNodes(), m_options.patroni);
    m_out << "fault plan (" << m_faults.size() << " faults):" << Qt::endl;
    for (const Fault &fault : m_faults)
        m_out << "  " << fault.describe() << Qt::endl;

    ChaosClient client(clientOptions(), m_record, m_clock);
    if (m_options.operators && !prepareDesk())
        return 2;
    if (m_options.replica && !prepareWatch())
        return 2;
    m_clock.start();
    client.start();
    if (m_desk)
        m_desk->start();
    if (m_watch)
        m_watch->start();
    startSimulate();
    for (const Fault &fault : m_faults)
        schedule(fault.atMs, fault.describe(), [this, fault] {
            // A failover waits up to 30 s for a formation still settling from the last.
            const bool failover = fault.kind == Fault::Kind::FailOver ||
                                  fault.kind == Fault::Kind::CrashPrimary ||
                                  fault.kind == Fault::Kind::Switchover;
            if (failover && m_clock.elapsed() - fault.atMs < 30000 && !formationSettled())
                return false;
            // A broker fault waits up to 30 s for the node down before it to
            // come back, and is dropped once the load has stopped. A cluster's
            // first stop and first crash wait as long as the load runs: the
            // run proves nothing without both.
            const bool broker =
                fault.kind == Fault::Kind::RestartBroker || fault.kind == Fault::Kind::CrashBroker;
            const bool firstOfItsKind =
                m_options.brokerCluster && m_faultCounts.value(fault.kindName()) == 0;
            if (broker && !firstOfItsKind &&
                m_clock.elapsed() >= qint64(m_options.seconds) * 1000) {
                ++m_faultCounts[QStringLiteral("rabbitmq fault skipped: the load had stopped")];
                return true;
            }
            if (broker && m_brokerDown &&
                (firstOfItsKind || m_clock.elapsed() - fault.atMs < 30000))
                return false;
            inject(fault);
            return true;
        });
    runUntil(qint64(m_options.seconds) * 1000);
    if (m_world->failover())
        ensureOneFailover();
    if (m_options.brokerCluster)
        ensureNodeStoppedAndKilled();
    client.stop();
    if (m_desk)
        m_desk->stop();
    if (m_watch)
        m_watch->stop();
    m_promotionsUnderLoad = m_promotions;
    m_out << "load stopped at " << m_clock.elapsed() / 1000.0 << " s; bringing everything back"
          << Qt::endl;
    return judge(bringBackAndSettle(client));
}

// The merchants' clients, as the world and the run's options shape them.
ClientOptions ChaosRun::clientOptions() const
{
    ClientOptions options;
    options.gateways = m_world->gatewayUrls();
    options.paymentsKey = m_world->paymentsKey();
    options.sagasKey = m_world->sagasKey();
    options.simulateKey = m_world->simulateKey();
    options.participant = m_world->participantUrl();
    options.patientSagas = m_options.operators;
    options.yuanSalesOnly = m_options.protocol != ChannelProtocol::Keel;
    options.slowPayers = m_options.protocol == ChannelProtocol::WechatPay;
    options.seed = m_options.seed;
    options.clients = m_options.clients;
    return options;
}

// After the load: everything back, the open requests sent again, and the
// system left to come to rest, each within what is left of the run's
// budget. Returns how many requests are still without a final answer.
int ChaosRun::bringBackAndSettle(ChaosClient &client)
{
    restartAllNow(budgetLeft(10000));
    const bool serving = waitUntilServing(budgetLeft(120000));
    finishSimulate();
    // One budget for all of them: each open key alone may wait out a
    // gateway's timeout, and keel simulate can leave dozens open. With the
    // world not back, nothing is sent and they are reported open.
    const int open = client.resolveOpenRequests(serving ? int(budgetLeft(120000)) : 0);
    m_out << "  t=" << m_clock.elapsed() / 1000.0 << "s open requests sent again; " << open
          << " still without a final answer" << Qt::endl;
    QElapsedTimer recovery;
    recovery.start();
    const qint64 recoveryBudget =
        serving ? budgetLeft(qint64(m_options.recoverySeconds) * 1000) : 0;
    bool atRest = quiet();
    while (!atRest && recovery.elapsed() < recoveryBudget) {
        restartAllNow(std::clamp<qint64>(recoveryBudget - recovery.elapsed(), 0, 10000));
        QThread::msleep(1000);
        atRest = quiet();
    }
    m_recoveryMs = recovery.elapsed();
    m_out << "  t=" << m_clock.elapsed() / 1000.0 << "s " << (atRest ? "at rest" : "still busy")
          << "; judging" << Qt::endl;
    m_consumer->stop();
    return open;
}

bool ChaosRun::prepareDesk()
{
    m_desk = std::make_unique<OperatorDesk>(m_world->settings(), m_options.seed);
    QString why;
    if (m_desk->prepare(&why))
        return true;
    m_out << "chaos: the operator desk could not start: " << why << Qt::endl;
    return false;
}

bool ChaosRun::prepareWatch()
{
    const std::optional<ConnectionSettings> replica =
        m_world->failover() ? m_world->failover()->replicaSettings(QStringLiteral("keel"))
                            : std::nullopt;
    if (!replica) {
        m_out << "chaos: the formation has no read replica" << Qt::endl;
        return false;
    }
    m_watch = std::make_unique<ReplicaWatch>(m_world->settings(), *replica,
                                             m_world->failover()->replicaName());
    QString why;
    if (m_watch->prepare(&why))
        return true;
    m_out << "chaos: the replica watch could not start: " << why << Qt::endl;
    return false;
}

// The end checks on what the run left, reported; 0 when none found a violation.
int ChaosRun::judge(int openRequests)
{
    const QList<Told> record = m_record.all();
    auto connection = LibpqConnection::open(m_world->settings());
    if (!connection) {
        m_out << "chaos: cannot read the database: " << connection.error().message << Qt::endl;
        return 2;
    }
    // Reconciliation first: its fee postings are then judged by the ledger
    // checks with everything else.
    Verdict reconciled;
    if (auto service = LibpqConnection::open(m_world->serviceSettings()))
        checkReconciliation(*service, reconciled, statementChannel(m_options.protocol));
    else
        reconciled.violation(QStringLiteral("reconciliation: the service login cannot connect: ") +
                             service.error().message);
    Verdict verdict =
        ChaosChecks(*connection, record, m_world->participant().allEffects(),
                    m_options.protocol == ChannelProtocol::Keel ? QStringLiteral("usd")
                                                                : QStringLiteral("cny"))
            .run();
    verdict.counts.insert(reconciled.counts);
    verdict.violations << reconciled.violations;
    verdict.violatingKeys << reconciled.violatingKeys;
    if (m_world->failover())
        checkFormation(*m_world->failover(), *connection, m_out, verdict);
    checkRepairs(*connection, verdict);
    if (m_watch)
        m_watch->judge(*connection, verdict);
    if (m_desk) {
        const QMap<QString, qint64> tried = m_desk->tried();
        for (auto it = tried.cbegin(); it != tried.cend(); ++it)
            verdict.counts[QStringLiteral("desk: ") + it.key()] = it.value();
    }
    if (openRequests > 0)
        verdict.counts[QStringLiteral("requests still open")] = openRequests;
    if (m_world->failover() && m_promotionsUnderLoad == 0)
        verdict.violation(QStringLiteral("a --failover run in which no failover happened under "
                                         "load proves nothing about failover"));
    if (m_options.brokerCluster && !nodeStoppedAndKilled())
        verdict.violation(QStringLiteral("a --broker-cluster run that did not both stop and kill "
                                         "a node proves nothing about the cluster"));
    if (m_simulateCrashed)
        verdict.violation(QStringLiteral("keel simulate crashed; see simulate.log"));
    for (const auto &[what, key] : std::as_const(m_simulateViolations))
        verdict.violation(what, key);
    scanForSecrets(m_options.directory, *m_world, verdict);
    report(verdict, record);
    return verdict.violations.isEmpty() ? 0 : 1;
}

// keel's own traffic generator beside the recorded load, for a merchant of
// its own: retries, duplicate keys sent at once, keys reused with another
// body, an order sent again under a new key, declines, captures and refunds.
// It records every answer (--record), and the end checks judge its merchant
// key by key from that record. Its key goes through the environment, like
// every secret of the run.
void ChaosRun::startSimulate()
{
    m_simulate = std::make_unique<QProcess>();
    const QString log = QDir(m_options.directory).filePath(QStringLiteral("simulate.log"));
    m_simulate->setStandardOutputFile(log, QIODevice::Append);
    m_simulate->setStandardErrorFile(log, QIODevice::Append);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("KEEL_API_KEY"), QString::fromLatin1(m_world->simulateKey()));
    m_simulate->setProcessEnvironment(environment);
    m_simulate->start(test::keelBinary(),
                      {QStringLiteral("simulate"), QStringLiteral("--http"),
                       m_world->gatewayUrls().constFirst(), QStringLiteral("--rate"),
                       QStringLiteral("5"), QStringLiteral("--clients"), QStringLiteral("2"),
                       QStringLiteral("--seconds"), QString::number(m_options.seconds),
                       QStringLiteral("--participant"), m_world->participantUrl(),
                       QStringLiteral("--record"), simulateRecordPath()});
    m_simulateStartMs = m_clock.elapsed();
}

QString ChaosRun::simulateRecordPath() const
{
    return QDir(m_options.directory).filePath(QStringLiteral("simulate.jsonl"));
}

void ChaosRun::finishSimulate()
{
    if (!m_simulate)
        return;
    if (!m_simulate->waitForFinished(30000)) {
        m_simulate->kill();
        m_simulate->waitForFinished(5000);
    }
    // Its tally is its last line; requests refused while a gateway was down
    // count as failed there, and are expected.
    QFile log(QDir(m_options.directory).filePath(QStringLiteral("simulate.log")));
    if (log.open(QIODevice::ReadOnly)) {
        const QList<QByteArray> lines = log.readAll().trimmed().split('\n');
        m_simulateTally = QString::fromUtf8(lines.constLast());
    }
    m_simulateCrashed = m_simulate->exitStatus() == QProcess::CrashExit;
    SimulateRecord record = readSimulateRecord(simulateRecordPath(), m_simulateStartMs);
    m_simulateViolations = record.violations;
    m_simulateExchanges = record.exchanges;
    for (Told &told : record.told)
        m_record.add(std::move(told));
}

void ChaosRun::schedule(qint64 atMs, QString what, std::function<bool()> action)
{
    m_pending.append({atMs, std::move(what), std::move(action)});
    std::stable_sort(m_pending.begin(), m_pending.end(),
                     [](const Pending &a, const Pending &b) { return a.atMs < b.atMs; });
}

void ChaosRun::runUntil(qint64 endMs)
{
    while (m_clock.elapsed() < endMs) {
        const qint64 now = m_clock.elapsed();
        while (!m_pending.isEmpty() && m_pending.first().atMs <= now) {
            Pending due = m_pending.takeFirst();
            if (!due.action())
                schedule(now + 500, due.what, due.action);
        }
        // A process that died without being killed is a finding, and comes back.
        for (const QString &name : m_world->processNames()) {
            KeelService *process = m_world->process(name);
            if (!m_down.contains(name) && !process->running()) {
                ++m_unplannedExits[name];
                m_out << "  t=" << now / 1000.0 << "s " << name << " exited by itself" << Qt::endl;
                m_down.insert(name);
                schedule(now + 500, name, [this, name] {
                    if (m_databaseDown || !m_world->process(name)->start())
                        return false;
                    m_down.remove(name);
                    return true;
                });
            }
        }
        if (m_world->failover() && now - m_settledSampleMs >= 1000) {
            m_settledSampleMs = now;
            if (!m_world->failover()->synchronous())
                m_settledSinceMs = -1;
            else if (m_settledSinceMs < 0)
                m_settledSinceMs = now;
        }
        if (m_world->failover() && !m_supervisorExitSeen &&
            !m_world->failover()->supervisorsRunning()) {
            m_supervisorExitSeen = true;
            m_out << "  t=" << now / 1000.0 << "s a " << m_world->failover()->engine()
                  << " supervisor exited" << Qt::endl;
        }
        QThread::msleep(50);
    }
}

void ChaosRun::inject(const Fault &fault)
{
    // A failover is counted once the formation takes it, a broker fault once
    // a node is taken down.
    if (fault.kind != Fault::Kind::FailOver && fault.kind != Fault::Kind::CrashPrimary &&
        fault.kind != Fault::Kind::Switchover && fault.kind != Fault::Kind::RestartBroker &&
        fault.kind != Fault::Kind::CrashBroker)
        ++m_faultCounts[fault.kindName()];
    const qint64 back = m_clock.elapsed() + fault.durationMs;
    switch (fault.kind) {
    case Fault::Kind::KillProcess: {
        if (m_down.contains(fault.target))
            return; // already down: this fault changes nothing
        m_world->process(fault.target)->kill();
        m_down.insert(fault.target);
        const QString name = fault.target;
        schedule(back, QStringLiteral("restart ") + name, [this, name] {
            // With the database down a process cannot start; it comes back after.
            if (m_databaseDown || !m_world->process(name)->start())
                return false;
            m_down.remove(name);
            return true;
        });
        return;
    }
    case Fault::Kind::RestartDatabase:
        if (m_databaseDown)
            return;
        (void)m_world->stopDatabase();
        m_databaseDown = true;
        schedule(back, QStringLiteral("start postgresql"), [this] {
            if (!m_world->startDatabase())
                return false;
            m_databaseDown = false;
            return true;
        });
        return;
    case Fault::Kind::FailOver:
    case Fault::Kind::CrashPrimary:
        failPrimary(fault, back);
        return;
    case Fault::Kind::Switchover:
        switchOver(fault);
        return;
    case Fault::Kind::RestartBroker:
    case Fault::Kind::CrashBroker:
        takeBrokerNodeDown(fault, back);
        return;
    default: {
        const QByteArray path = fault.target.toUtf8();
        test::TestParticipant &participant = m_world->participant();
        participant.program(path, participantFault(fault, participant.calls(path)));
        return;
    }
    }
}

// A failover is what an operator would do: only once the formation has been
// whole and replicating synchronously for 10 s (sampled each second). A
// secondary that has just rejoined may still restart its PostgreSQL; while
// the monitor thinks it unhealthy the primary runs without synchronous
// replication, and pg_auto_failover 2.0 lets a failover proceed then (see
// docs/findings.md: 6 s of acknowledged writes lost, seed 1796211429085).
bool ChaosRun::formationSettled() const
{
    return !m_switchoverPending && m_settledSinceMs >= 0 &&
           m_clock.elapsed() - m_settledSinceMs >= 10000;
}

void ChaosRun::tookFailover()
{
    m_settledSinceMs = -1;
    m_lastFailoverMs = m_clock.elapsed();
}

// A --failover run must fail over under load: another node promoted while
// the clients run. The plan has at least one, but a formation that never
// settled can leave none taken when the load's time is up, and a monitor
// can leave a primary it lost unreplaced until the node comes back: then
// one now, the load still running. Either way the clients go on for 20 s
// after the last failover.
void ChaosRun::ensureOneFailover()
{
    test::HaFormation *formation = m_world->failover();
    // Faults the held loop owes fire meanwhile: a planned failover among them counts.
    const qint64 deadline = m_clock.elapsed() + budgetLeft(180000);
    while (m_promotions == 0 && m_clock.elapsed() < deadline) {
        // One taken now must be promoted with the clients still running.
        if (formationSettled() && deadline - m_clock.elapsed() > 60000) {
            m_out << "  no node promoted yet: a failover now" << Qt::endl;
            failPrimary(Fault{Fault::Kind::FailOver, m_clock.elapsed(), 2000, {}, 0},
                        m_clock.elapsed() + 2000);
        }
        runUntil(m_clock.elapsed() + 1000);
    }
    // The clients go on through the last failover's aftermath.
    if (formation->failovers() > 0 && m_clock.elapsed() - m_lastFailoverMs < 20000)
        runUntil(m_lastFailoverMs + 20000);
}

// The primary's node goes away under load, shut down cleanly or crashed,
// and the monitor must promote the secondary on its own.
void ChaosRun::failPrimary(const Fault &fault, qint64 back)
{
    test::HaFormation *formation = m_world->failover();
    if (!formationSettled()) {
        ++m_faultCounts[QStringLiteral("failover skipped: formation not settled")];
        return;
    }
    const bool crash = fault.kind == Fault::Kind::CrashPrimary;
    const Result<int> stopped = crash ? formation->crashPrimary() : formation->shutDownPrimary();
    if (!stopped) {
        m_out << "  failover refused: " << stopped.error().message << Qt::endl;
        return;
    }
    tookFailover();
    ++m_faultCounts[fault.kindName()];
    const int port = *stopped;
    const qint64 at = m_clock.elapsed();
    m_out << "  t=" << at / 1000.0 << "s primary on port " << port
          << (crash ? " crashed" : " shut down") << Qt::endl;
    // The node comes back once the monitor has promoted the other (as a
    // rebooted machine finds a new primary), or after 60 s whatever it did.
    schedule(back, QStringLiteral("start postgresql node on port %1").arg(port),
             [this, formation, port, at, told = false, counted = false]() mutable {
                 const int primary = formation->primaryPort();
                 const qint64 since = m_clock.elapsed() - at;
                 if ((primary == 0 || primary == port) && since >= 20000 && !told) {
                     told = true;
                     m_out << "  t=" << m_clock.elapsed() / 1000.0
                           << "s no other node promoted 20 s after the primary went:" << Qt::endl;
                     describeFormation();
                 }
                 if ((primary == 0 || primary == port) && since < 60000)
                     return false;
                 // Once, however often the restart below has to be tried again.
                 if (!counted && (primary == 0 || primary == port))
                     ++m_faultCounts[QStringLiteral("primary taken away, none promoted in 60 s")];
                 else if (!counted)
                     ++m_promotions;
                 counted = true;
                 const Status restarted = formation->restartNode(port);
                 if (restarted)
                     m_out << "  t=" << m_clock.elapsed() / 1000.0 << "s node on port " << port
                           << " restarted; primary now on port " << primary << Qt::endl;
                 return restarted.ok();
             });
}

// An operator's planned switchover under load, only once the formation has
// settled: the primary hands over to the synchronous standby and follows it.
// Counted once another node is primary and takes writes; no other failover
// or switchover starts meanwhile. It is no failover: a run still needs one.
void ChaosRun::switchOver(const Fault &fault)
{
    test::HaFormation *formation = m_world->failover();
    if (!formationSettled()) {
        ++m_faultCounts[QStringLiteral("switchover skipped: formation not settled")];
        return;
    }
    // Switchovers and manual failovers take turns, the seed saying which comes first.
    const bool manualFailover = (m_options.seed + quint64(m_handoversBegun++)) % 2 == 1;
    const QString command =
        manualFailover ? QStringLiteral("failover") : QStringLiteral("switchover");
    const Result<int> from = formation->beginSwitchover(manualFailover);
    if (!from) {
        ++m_faultCounts[QStringLiteral("switchover refused")];
        m_out << "  switchover refused: " << from.error().message << Qt::endl;
        return;
    }
    tookFailover();
    m_switchoverPending = true;
    ++m_faultCounts[fault.kindName()];
    ++m_faultCounts[QStringLiteral("postgresql handover by patronictl ") + command];
    const qint64 at = m_clock.elapsed();
    m_out << "  t=" << at / 1000.0 << "s switchover from port " << *from << " begun (" << command
          << ")" << Qt::endl;
    schedule(at + 500, QStringLiteral("switchover from port %1").arg(*from),
             [this, formation, port = *from, at] {
                 const int primary = formation->primaryPort();
                 const auto writable = [&] {
                     for (const test::HaFormation::Node &node : formation->nodes())
                         if (node.port == primary)
                             return node.writable;
                     return false;
                 };
                 if (primary != 0 && primary != port && writable()) {
                     ++m_switchovers;
                     m_switchoverPending = false;
                     tookFailover(); // settled again only 10 s after the handover
                     m_out << "  t=" << m_clock.elapsed() / 1000.0 << "s switched over to port "
                           << primary << Qt::endl;
                     return true;
                 }
                 if (m_clock.elapsed() - at < 60000)
                     return false;
                 m_switchoverPending = false;
                 ++m_faultCounts[QStringLiteral("switchover: no other primary in 60 s")];
                 m_out << "  t=" << m_clock.elapsed() / 1000.0
                       << "s no other node primary 60 s after the switchover began:" << Qt::endl;
                 describeFormation();
                 return true;
             });
}

void ChaosRun::restartAllNow(qint64 budgetMs)
{
    // Each start may wait for its process (15 s at most): none begins once
    // the budget is spent, so one call ends within it and one start.
    QElapsedTimer spent;
    spent.start();
    // What the schedule still owed, at once and in dependency order.
    for (int round = 0; round < 20 && !m_pending.isEmpty() && spent.elapsed() < budgetMs; ++round) {
        QList<Pending> due = std::exchange(m_pending, {});
        std::stable_partition(due.begin(), due.end(), [](const Pending &p) {
            return p.what.contains(QLatin1String("postgresql")) ||
                   p.what.contains(QLatin1String("rabbitmq"));
        });
        for (Pending &pending : due) {
            // A fault the plan had not reached (a slow restart held the loop) is not injected now.
            if (pending.what.startsWith(QLatin1String("t="))) {
                ++m_faultCounts[QStringLiteral("planned, not reached before the load ended")];
                continue;
            }
            if (spent.elapsed() >= budgetMs || !pending.action())
                m_pending.append(pending);
        }
        if (!m_pending.isEmpty())
            QThread::msleep(500);
    }
    for (const QString &name : m_world->processNames())
        if (spent.elapsed() < budgetMs && !m_world->process(name)->running() && !m_databaseDown &&
            m_world->process(name)->start())
            m_down.remove(name);
}

// After the load, everything the faults took away is brought back before
// open requests are sent again: every process running, the broker up, the
// database taking writes. Bounded, and reported either way: a formation
// that elects no primary is a finding to read, not a run that never ends.
// What is left of `wantMs` before the run's own end, which leaves room to
// judge and tear down inside ctest's timeout however long each phase ran.
qint64 ChaosRun::budgetLeft(qint64 wantMs) const
{
    const qint64 finishByMs = qint64(m_options.seconds) * 1000 + 720000;
    return std::clamp<qint64>(finishByMs - m_sinceStart.elapsed(), 0, wantMs);
}

bool ChaosRun::waitUntilServing(qint64 budgetMs)
{
    QElapsedTimer waited;
    waited.start();
    while (!serving() && waited.elapsed() < budgetMs) {
        QThread::msleep(1000);
        restartAllNow(std::clamp<qint64>(budgetMs - waited.elapsed(), 0, 10000));
    }
    const bool back = serving();
    m_out << "  t=" << m_clock.elapsed() / 1000.0 << "s "
          << (back ? "everything back" : "not everything back") << " after "
          << waited.elapsed() / 1000.0 << " s" << Qt::endl;
    if (back)
        return true;
    for (const Pending &pending : std::as_const(m_pending))
        m_out << "    still owed: " << pending.what << Qt::endl;
    if (m_world->failover())
        describeFormation();
    return false;
}

bool ChaosRun::serving()
{
    if (!m_pending.isEmpty() || !m_down.isEmpty() || m_databaseDown || m_brokerDown)
        return false;
    return !m_world->failover() || m_world->failover()->primaryPort() != 0;
}

// What the monitor and each node say, for a formation slow to elect a primary.
void ChaosRun::describeFormation()
{
    for (const test::HaFormation::Node &node : m_world->failover()->nodes())
        m_out << "    node " << node.name << " on port " << node.port << ": reported "
              << node.reportedState << ", goal " << node.goalState << ", keeper "
              << (node.keeperRunning ? "running" : "stopped") << ", "
              << (node.reachable ? (node.writable ? "writable" : "read-only") : "unreachable")
              << Qt::endl;
}

// Nothing left in flight: every event applied, every saga and payment at
// rest, every notification delivered or parked, every queued guarded action
// carried out (one whose worker died holding it waits out its claim, a
// minute, before another worker takes it).
bool ChaosRun::quiet()
{
    if (m_world->failover() && !m_world->failover()->healthy())
        return false;
    auto connection = LibpqConnection::open(m_world->settings());
    if (!connection)
        return false;
    const Result<QString> busy = connection->scalar(
        "SELECT (SELECT count(*) FROM keel.outbox WHERE published_at IS NULL AND parked_at IS "
        "NULL) + (SELECT count(*) FROM keel.sagas WHERE status IN ('running', 'compensating')) + "
        "(SELECT count(*) FROM keel.notifications WHERE status = 'pending') + (SELECT count(*) "
        "FROM keel.payment_state WHERE state IN ('Created', 'Authorizing', 'Capturing', "
        "'Refunding')) + (SELECT count(*) FROM keel.operator_actions WHERE status = 'queued') + "
        "(SELECT count(*) FROM chaos.committed_events e WHERE NOT EXISTS (SELECT 1 "
        "FROM chaos.applied_events a WHERE a.message_id = 'keel-outbox-' || e.outbox_id))");
    return busy && *busy == QLatin1String("0");
}

void ChaosRun::report(const Verdict &verdict, const QList<Told> &record)
{
    qint64 attempts = 0, retried = 0;
    for (const Told &told : record) {
        attempts += told.attempts.size();
        retried += told.attempts.size() > 1 ? 1 : 0;
    }
    m_out << "\nchaos result (seed " << m_options.seed << ")" << Qt::endl;
    m_out << "  requests (keys): " << record.size() << ", HTTP attempts: " << attempts
          << ", keys retried: " << retried << Qt::endl;
    m_out << "  faults injected:" << Qt::endl;
    for (auto it = m_faultCounts.cbegin(); it != m_faultCounts.cend(); ++it)
        m_out << "    " << it.key() << ": " << it.value() << Qt::endl;
    m_out << "  process start attempts (a start fails while the database is away):";
    for (const QString &name : m_world->processNames())
        m_out << ' ' << name << '=' << m_world->process(name)->starts();
    m_out << Qt::endl;
    for (auto it = m_unplannedExits.cbegin(); it != m_unplannedExits.cend(); ++it)
        m_out << "  exited by itself: " << it.key() << " x" << it.value() << Qt::endl;
    m_out << "  events received by the consumer: " << m_consumer->received()
          << ", duplicates absorbed by its inbox: " << m_consumer->duplicates()
          << ", consumer reconnects: " << m_consumer->reconnects() << Qt::endl;
    m_out << "  keel simulate beside it (its " << m_simulateExchanges
          << " recorded exchanges are judged key by key with the rest): " << m_simulateTally
          << Qt::endl;
    m_out << "  recovery after the load: " << m_recoveryMs / 1000.0 << " s" << Qt::endl;
    if (test::HaFormation *formation = m_world->failover())
        m_out << "  failovers performed: " << m_promotions << " of "
              << formation->failovers() -
                     m_faultCounts.value(QStringLiteral("postgresql switchover"))
              << " primaries taken away replaced by the monitor; switchovers: " << m_switchovers
              << " of " << m_faultCounts.value(QStringLiteral("postgresql switchover"))
              << "; primary now on port " << formation->primaryPort() << Qt::endl;
    for (auto it = verdict.counts.cbegin(); it != verdict.counts.cend(); ++it)
        m_out << "  " << it.key() << ": " << it.value() << Qt::endl;
    m_out << "  violations: " << verdict.violations.size() << Qt::endl;
    constexpr int Listed = 100;
    for (const QString &violation : verdict.violations.mid(0, Listed))
        m_out << "    " << violation << Qt::endl;
    if (verdict.violations.size() > Listed)
        m_out << "    ... and " << verdict.violations.size() - Listed << " more" << Qt::endl;
    if (verdict.violations.isEmpty())
        return;
    m_out << "\nreplay: keel-chaos --seed " << m_options.seed << " --seconds " << m_options.seconds
          << (m_options.failover ? " --failover" : "") << (m_options.patroni ? " --patroni" : "")
          << Qt::endl;
    printHistories(m_out, verdict.violatingKeys, record, m_faults);
}

} // namespace keel::chaos
