#include "ChannelAdapterTest.h"

#include "core/api/StripeReplies.h"
#include "core/db/LibpqConnection.h"
#include "core/net/LoopbackPort.h"
#include "core/net/TlsSession.h"
#include "core/payment/PaymentContext.h"
#include "core/reference/CurrencyStore.h"
#include "devkit/sim/ChannelSimulator.h"

#include <algorithm>

namespace keel::test {

ChannelAdapterTest::ChannelAdapterTest(QString callPrefix) : m_callPrefix(std::move(callPrefix)) {}

ChannelAdapterTest::~ChannelAdapterTest() = default;

void ChannelAdapterTest::SetUp()
{
    GatewayTest::SetUp();
    if (HasFatalFailure())
        return;
    ASSERT_TRUE(m_pki.ok());
    ASSERT_TRUE(TlsSession::trustAlso(m_pki.caCertificate()).isEmpty());
    m_simPort = bindLoopback();
    ASSERT_NE(m_simPort, 0);
    m_previousSink = ServiceLog::setSink([this](ServiceLog::Level, const QString &line) {
        if (line.startsWith(m_callPrefix)) {
            QMutexLocker lock(&m_callsMutex);
            m_calls.append(line.mid(m_callPrefix.size()));
        }
    });
}

void ChannelAdapterTest::TearDown()
{
    if (m_sim) {
        m_sim->terminate();
        m_sim->waitForFinished(10000);
    }
    if (m_gateway)
        m_gateway->stop();
    m_simulator.reset();
    ServiceLog::setSink(m_previousSink);
    (void)TlsSession::trustAlso({});
    GatewayTest::TearDown();
}

int ChannelAdapterTest::calls(const char *call)
{
    QMutexLocker lock(&m_callsMutex);
    return int(std::count_if(m_calls.cbegin(), m_calls.cend(), [&](const QString &line) {
        return line.startsWith(QLatin1String(call));
    }));
}

Reconciler::Report ChannelAdapterTest::reconcile()
{
    auto session = LibpqConnection::open(m_serviceLogin);
    EXPECT_TRUE(session.ok());
    auto currencies = loadCurrencies(*session);
    EXPECT_TRUE(currencies.ok());
    if (!session || !currencies)
        return {};
    PaymentContext context;
    context.settings = m_serviceLogin;
    context.channel = m_remoteChannel(m_serviceLogin);
    context.currencies = *currencies;
    StripeReplies replies;
    auto report = Reconciler(context, *session, replies).runOnce(0);
    EXPECT_TRUE(report.ok()) << qPrintable(report.error().message);
    return report ? *report : Reconciler::Report{};
}

HttpReply ChannelAdapterTest::charge(const QByteArray &key, const QByteArray &source)
{
    return post("/v1/charges", "amount=1999&currency=cny&source=" + source, key);
}

QString ChannelAdapterTest::stateOf(const QString &chargeId)
{
    return scalar("SELECT s.state FROM keel.payment_state s JOIN keel.charges c "
                  "ON c.id = s.charge_id WHERE c.public_id = '" +
                  chargeId.toLatin1() + "'");
}

QString ChannelAdapterTest::simRecord()
{
    return scalar("SELECT coalesce(string_agg(operation || ' ' || outcome || ' ' || amount, "
                  "', ' ORDER BY operation), '') FROM keel.sim_channel_operations");
}

} // namespace keel::test
