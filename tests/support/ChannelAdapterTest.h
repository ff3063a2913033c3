#pragma once

#include "GatewayTest.h"
#include "TestPki.h"

#include "core/ServiceLog.h"
#include "core/payment/Reconciler.h"

#include <QMutex>
#include <QProcess>
#include <QStringList>

#include <memory>

namespace keel {
class ChannelSimulator;
}

namespace keel::test {

// keel calling a real channel's protocol through its adapter: the simulated
// channel speaking that protocol over TLS in this process (the subclass
// starts it), the gateway calling it, and the calls that reached it counted
// from the simulator's log lines ("<prefix>...").
class ChannelAdapterTest : public GatewayTest {
protected:
    explicit ChannelAdapterTest(QString callPrefix);
    ~ChannelAdapterTest() override;

    void SetUp() override;
    void TearDown() override;

    // How many logged calls start with `call` (after the prefix).
    int calls(const char *call);
    // One reconciler pass, as the gateway's login, asking the channel.
    Reconciler::Report reconcile();
    HttpReply charge(const QByteArray &key, const QByteArray &source);
    QString stateOf(const QString &chargeId);
    // What the simulated network recorded: "operation outcome amount, ...".
    QString simRecord();

    TestPki m_pki;
    int m_simPort = 0;
    std::unique_ptr<ChannelSimulator> m_simulator;
    std::unique_ptr<QProcess> m_sim; // a `keel channel-sim` process, for the command's own test

private:
    QString m_callPrefix;
    ServiceLog::Sink m_previousSink;
    QMutex m_callsMutex;
    QStringList m_calls;
};

} // namespace keel::test
