#include "FaultPlan.h"

#include <QStringList>

#include <algorithm>
#include <cstdlib>
#include <random>

namespace keel::chaos {

QString Fault::kindName() const
{
    switch (kind) {
    case Kind::KillProcess:
        return QStringLiteral("kill -9 ") + target.section(u'-', 0, 0);
    case Kind::RestartDatabase:
        return QStringLiteral("postgresql immediate shutdown");
    case Kind::FailOver:
        return QStringLiteral("postgresql primary shut down");
    case Kind::CrashPrimary:
        return QStringLiteral("postgresql primary crashed");
    case Kind::Switchover:
        return QStringLiteral("postgresql switchover");
    case Kind::RestartBroker:
        return target.isEmpty() ? QStringLiteral("rabbitmq stopped")
                                : QStringLiteral("rabbitmq node stopped");
    case Kind::CrashBroker:
        return QStringLiteral("rabbitmq node killed");
    case Kind::ParticipantFails:
        return QStringLiteral("participant fails");
    case Kind::ParticipantHangs:
        return QStringLiteral("participant hangs");
    case Kind::ParticipantRefuses:
        return QStringLiteral("participant refuses");
    case Kind::ParticipantRepeats:
        return QStringLiteral("participant answers twice");
    }
    return {};
}

QString Fault::describe() const
{
    const QString at = QString::number(double(atMs) / 1000.0, 'f', 1);
    switch (kind) {
    case Kind::KillProcess:
        return QStringLiteral("t=%1s kill -9 %2, back after %3 ms").arg(at, target).arg(durationMs);
    case Kind::RestartDatabase:
    case Kind::RestartBroker:
    case Kind::CrashBroker:
    case Kind::CrashPrimary:
        return QStringLiteral("t=%1s %2%3, back after %4 ms")
            .arg(at, kindName(), target.isEmpty() ? QString() : QStringLiteral(" ") + target)
            .arg(durationMs);
    case Kind::FailOver:
    case Kind::Switchover:
        return QStringLiteral("t=%1s %2").arg(at, kindName());
    default:
        return QStringLiteral("t=%1s %2: %3, next %4 calls").arg(at, kindName(), target).arg(count);
    }
}

namespace {

// A cluster's broker faults each take one node, and half are crashes, from a
// generator of their own so the rest of a recorded seed's plan stays as it was.
// A node may take half a minute to boot on a starved machine, and a broker
// fault meeting a node still down only waits: faults closer than
// `brokerFaultsApart` to the one before are dropped. Then at least one stop
// and one crash, the first two in time: a run that never lost a node proves
// nothing.
void spreadOverBrokerNodes(QList<Fault> &faults, quint64 seed, int nodes)
{
    std::mt19937_64 random(seed ^ 0x6e6f646573212121ULL);
    QList<Fault> kept;
    qint64 lastBrokerMs = -brokerFaultsApart - 1;
    for (const Fault &fault : std::as_const(faults)) {
        if (fault.kind == Fault::Kind::RestartBroker) {
            if (fault.atMs - lastBrokerMs <= brokerFaultsApart)
                continue;
            lastBrokerMs = fault.atMs;
        }
        kept.append(fault);
    }
    faults = std::move(kept);
    QList<Fault *> broker;
    for (Fault &fault : faults)
        if (fault.kind == Fault::Kind::RestartBroker)
            broker.append(&fault);
    // Failovers are kept: a run may need both kinds of fault.
    const auto replaceable = [&](qsizetype at) {
        const Fault::Kind kind = faults[at].kind;
        return kind != Fault::Kind::RestartBroker && kind != Fault::Kind::FailOver &&
               kind != Fault::Kind::CrashPrimary && kind != Fault::Kind::Switchover;
    };
    for (qsizetype at = 0; broker.size() < 2 && at < faults.size(); ++at)
        if (replaceable(at) && std::all_of(broker.cbegin(), broker.cend(), [&](const Fault *b) {
                return std::abs(faults[at].atMs - b->atMs) > brokerFaultsApart;
            })) {
            faults[at] = Fault{Fault::Kind::RestartBroker, faults[at].atMs, 2000, {}, 0};
            broker.append(&faults[at]);
        }
    std::sort(broker.begin(), broker.end(),
              [](const Fault *a, const Fault *b) { return a->atMs < b->atMs; });
    for (qsizetype i = 0; i < broker.size(); ++i) {
        broker[i]->target = QStringLiteral("rabbitmq-%1").arg(1 + int(random() % quint64(nodes)));
        const bool crash = i < 2 ? i == 1 : random() % 2 == 0;
        if (crash)
            broker[i]->kind = Fault::Kind::CrashBroker;
    }
}

// Switchovers too come from a generator of their own: half the clean
// shutdowns become one. A plan left without one gets one of its own, added
// at 60 % of the run and taking no failover's place.
void planSwitchovers(QList<Fault> &faults, quint64 seed, int seconds)
{
    std::mt19937_64 switches(seed ^ 0x7377697463686573ULL);
    bool one = false;
    for (Fault &fault : faults)
        if (fault.kind == Fault::Kind::FailOver && switches() % 2 == 0) {
            fault.kind = Fault::Kind::Switchover;
            one = true;
        }
    if (!one && seconds > 10)
        faults.append(Fault{Fault::Kind::Switchover, qint64(seconds) * 600, 0, {}, 0});
}

} // namespace

QList<Fault> planFaults(quint64 seed, int seconds, const QStringList &processes, bool failover,
                        int brokerNodes, bool switchovers)
{
    std::mt19937_64 random(seed);
    const auto between = [&](int low, int high) {
        return low + int(random() % quint64(high - low + 1));
    };
    // Refusals only where a step may refuse (its action); failures and hangs
    // anywhere, the merchant's notify endpoint included.
    static const char *const participantPaths[] = {"/reserve", "/confirm",   "/notify",
                                                   "/release", "/unconfirm", "/merchant-notify"};
    QList<Fault> faults;
    // The first faults come once the load is going; the last leave time to
    // see recovery before the load stops.
    for (qint64 at = between(1500, 3000); at < qint64(seconds) * 1000 - 3000;
         at += between(1500, 4500)) {
        Fault fault;
        fault.atMs = at;
        const int roll = between(0, 99);
        if (roll < 45) {
            fault.kind = Fault::Kind::KillProcess;
            fault.target = processes.at(between(0, int(processes.size()) - 1));
            fault.durationMs = between(200, 2500);
        } else if (roll < 57) {
            fault.kind = failover ? Fault::Kind::FailOver : Fault::Kind::RestartDatabase;
            fault.durationMs = between(300, 3000);
        } else if (roll < 67) {
            fault.kind = Fault::Kind::RestartBroker;
            fault.durationMs = between(500, 4000);
        } else {
            fault.kind = roll < 80   ? Fault::Kind::ParticipantFails
                         : roll < 90 ? Fault::Kind::ParticipantHangs
                                     : Fault::Kind::ParticipantRefuses;
            fault.target = QLatin1String(participantPaths[between(
                0, fault.kind == Fault::Kind::ParticipantRefuses ? 2 : 5)]);
            fault.count = between(1, 8);
        }
        faults.append(fault);
    }
    const auto failsOver = [](const Fault &fault) {
        return fault.kind == Fault::Kind::FailOver;
    };
    if (failover && !faults.isEmpty() && std::none_of(faults.cbegin(), faults.cend(), failsOver)) {
        Fault &middle = faults[faults.size() / 2];
        middle = Fault{Fault::Kind::FailOver, middle.atMs, 0, {}, 0};
    }
    // Half the failovers are crashes, decided by a generator of their own so
    // that recorded seeds keep the rest of their plan.
    std::mt19937_64 crashes(seed ^ 0x6372617368657321ULL);
    for (Fault &fault : faults)
        if (fault.kind == Fault::Kind::FailOver && crashes() % 2 == 0)
            fault.kind = Fault::Kind::CrashPrimary;
    if (switchovers)
        planSwitchovers(faults, seed, seconds);
    if (brokerNodes > 1)
        spreadOverBrokerNodes(faults, seed, brokerNodes);
    // Repeated answers come from a generator of their own, so that the plan
    // above stays what it was for seeds recorded before they existed.
    std::mt19937_64 repeats(seed ^ 0x7265706561747321ULL);
    for (qint64 at = 4000 + qint64(repeats() % 4000); at < qint64(seconds) * 1000 - 3000;
         at += 5000 + qint64(repeats() % 5000)) {
        Fault fault;
        fault.kind = Fault::Kind::ParticipantRepeats;
        fault.atMs = at;
        fault.target = QLatin1String(participantPaths[repeats() % std::size(participantPaths)]);
        fault.count = 1 + int(repeats() % 8);
        faults.append(fault);
    }
    std::stable_sort(faults.begin(), faults.end(),
                     [](const Fault &a, const Fault &b) { return a.atMs < b.atMs; });
    return faults;
}

} // namespace keel::chaos
