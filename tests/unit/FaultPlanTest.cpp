#include "FaultPlan.h"

#include <QStringList>

#include <gtest/gtest.h>

using namespace keel::chaos;

namespace {

QList<Fault> brokerFaults(const QList<Fault> &plan)
{
    QList<Fault> broker;
    for (const Fault &fault : plan)
        if (fault.kind == Fault::Kind::RestartBroker || fault.kind == Fault::Kind::CrashBroker)
            broker.append(fault);
    return broker;
}

} // namespace

// CI once drew a plan whose crash came 2.6 s after a stop; the stopped node
// took half a minute to boot, the crash was dropped, and the run proved nothing.
TEST(FaultPlanTest, AClustersFirstTwoBrokerFaultsAreAStopThenACrashFarApart)
{
    const QStringList processes{QStringLiteral("gateway-1"), QStringLiteral("worker-1"),
                                QStringLiteral("relay-1")};
    for (quint64 seed : {quint64(1796508689840), quint64(1), quint64(42), quint64(977)}) {
        for (quint64 step = 0; step < 250; ++step) {
            const QList<Fault> broker =
                brokerFaults(planFaults(seed + step * 7919, 60, processes, false, 3));
            SCOPED_TRACE(seed + step * 7919);
            ASSERT_GE(broker.size(), 2);
            EXPECT_EQ(broker[0].kind, Fault::Kind::RestartBroker);
            EXPECT_EQ(broker[1].kind, Fault::Kind::CrashBroker);
            for (qsizetype i = 1; i < broker.size(); ++i)
                EXPECT_GT(broker[i].atMs - broker[i - 1].atMs, brokerFaultsApart);
            for (const Fault &fault : broker)
                EXPECT_TRUE(fault.target.startsWith(QStringLiteral("rabbitmq-")));
        }
    }
}

TEST(FaultPlanTest, ASingleBrokersFaultsAreLeftAsDrawn)
{
    const QStringList processes{QStringLiteral("gateway-1")};
    for (quint64 seed = 1; seed < 200; ++seed)
        for (const Fault &fault : brokerFaults(planFaults(seed, 60, processes, false)))
            EXPECT_EQ(fault.kind, Fault::Kind::RestartBroker) << seed;
}
