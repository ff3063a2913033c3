// A "not processed" or "never seen" answer speaks for one request only: a
// twin of it — the original still on its way, a retry, a takeover — may
// reach the network afterwards. keel closes an authorization or a refund at
// the channel (关单) before it calls it failed. The network is the simulated
// channel, the one part a test may stand in for; between it and keel sits a
// stretch of network the test controls: it can hold a request on its way, or
// lose the answer to one request while its twin gets through.

#include "GatewayTest.h"

#include "core/api/StripeReplies.h"
#include "core/db/LibpqConnection.h"
#include "core/ledger/Ledger.h"
#include "core/payment/PaymentContext.h"
#include "core/payment/Reconciler.h"
#include "core/reference/CurrencyStore.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>

#include <gtest/gtest.h>

#include <optional>

using namespace keel;

namespace {

// What the stretch of network between keel and the channel does to the next
// request that crosses it.
enum class Transit {
    Deliver,         // arrives, and its answer comes back
    Hold,            // still on its way: keel hears nothing, the network nothing yet
    RefuseAfterTwin, // a twin gets through and is processed; this one is refused
    Refuse,          // refused before processing, and no twin
    ProcessedUnseen, // processed, and the answer says "no such operation" (a lagging record)
};

class NetworkInTransit final : public Channel {
public:
    explicit NetworkInTransit(std::shared_ptr<Channel> network) : m_network(std::move(network)) {}

    QString name() const override { return m_network->name(); }
    QString statementChannel() const override { return m_network->statementChannel(); }

    ChannelResult execute(const ChannelRequest &request) override
    {
        QMutexLocker lock(&m_mutex);
        const Transit transit = std::exchange(m_next, Transit::Deliver);
        switch (transit) {
        case Transit::Deliver:
            break;
        case Transit::Hold:
            m_held = request;
            return {ChannelOutcome::Unknown, {}, QStringLiteral("held on its way")};
        case Transit::RefuseAfterTwin:
            m_network->execute(request);
            return {ChannelOutcome::Failed, {}, QStringLiteral("refused: busy")};
        case Transit::Refuse:
            return {ChannelOutcome::Failed, {}, QStringLiteral("refused: unavailable")};
        case Transit::ProcessedUnseen:
            m_network->execute(request);
            return {ChannelOutcome::NotFound, {}, QStringLiteral("no such operation yet")};
        }
        lock.unlock();
        return m_network->execute(request);
    }

    ChannelResult query(const ChannelRequest &operation) override
    {
        return m_network->query(operation);
    }

    ChannelResult close(const ChannelRequest &operation) override
    {
        QMutexLocker lock(&m_mutex);
        if (m_closeUnreachable)
            return {ChannelOutcome::Unknown, {}, QStringLiteral("close got no answer")};
        lock.unlock();
        return m_network->close(operation);
    }

    void next(Transit transit)
    {
        QMutexLocker lock(&m_mutex);
        m_next = transit;
    }

    void setCloseUnreachable(bool unreachable)
    {
        QMutexLocker lock(&m_mutex);
        m_closeUnreachable = unreachable;
    }

    // The held request finally reaches the network; what the network answers.
    std::optional<ChannelResult> deliverHeld()
    {
        QMutexLocker lock(&m_mutex);
        if (!m_held)
            return std::nullopt;
        const ChannelRequest held = *std::exchange(m_held, std::nullopt);
        lock.unlock();
        return m_network->execute(held);
    }

private:
    std::shared_ptr<Channel> m_network;
    QMutex m_mutex;
    Transit m_next = Transit::Deliver;
    std::optional<ChannelRequest> m_held;
    bool m_closeUnreachable = false;
};

QJsonObject json(const HttpReply &reply)
{
    return QJsonDocument::fromJson(reply.body).object();
}

QString field(const HttpReply &reply, const char *name)
{
    return json(reply).value(QLatin1String(name)).toString();
}

class ChannelCloseTest : public keel::test::GatewayTest {
protected:
    void SetUp() override
    {
        GatewayTest::SetUp();
        if (HasFatalFailure())
            return;
        // The channel keeps its record with the rights a gateway has.
        m_network = std::make_shared<SimulatedChannel>(m_serviceLogin, SimulatedChannelConfig{});
        m_transit = std::make_shared<NetworkInTransit>(m_network);
        m_remoteChannel = [transit = m_transit](const ConnectionSettings &) {
            return transit;
        };
        startGateway();
    }

    // One pass of the reconciler, as the gateway's service login, through the
    // same stretch of network.
    void reconcile()
    {
        PaymentContext context;
        context.settings = m_serviceLogin;
        context.channel = m_transit;
        auto session = LibpqConnection::open(m_serviceLogin);
        ASSERT_TRUE(session.ok()) << qPrintable(session.error().message);
        auto currencies = loadCurrencies(*session);
        ASSERT_TRUE(currencies.ok());
        context.currencies = *currencies;
        StripeReplies replies;
        auto report = Reconciler(context, *session, replies).runOnce(0);
        ASSERT_TRUE(report.ok()) << qPrintable(report.error().message);
        EXPECT_EQ(report->failed, 0);
    }

    QString channelRecord(const QString &reference, const char *operation)
    {
        return scalar("SELECT outcome FROM keel.sim_channel_operations WHERE reference = '" +
                      reference.toLatin1() + "' AND operation = '" + operation + "'");
    }

    QString stateOf(const QString &chargeId)
    {
        return scalar("SELECT s.state FROM keel.payment_state s JOIN keel.charges c "
                      "ON c.id = s.charge_id WHERE c.public_id = '" +
                      chargeId.toLatin1() + "'");
    }

    void expectBooksAgreeWithTheChannel()
    {
        auto session = LibpqConnection::open(settings());
        ASSERT_TRUE(session.ok());
        auto audit = Ledger::audit(*session);
        ASSERT_TRUE(audit.ok()) << qPrintable(audit.error().message);
        EXPECT_TRUE(audit->violations.isEmpty()) << qPrintable(audit->violations.join(u'\n'));
        EXPECT_GT(audit->chargesAgainstChannel, 0);
    }

    // keel's state for the charge, the channel's record of its authorization,
    // and the books agreeing with the channel.
    void expectSettledAs(const QString &id, const char *state, const char *authorization)
    {
        EXPECT_EQ(stateOf(id), QLatin1String(state));
        EXPECT_EQ(channelRecord(id, "authorize"), QLatin1String(authorization));
        expectBooksAgreeWithTheChannel();
    }

    QString capturedCharge(const QByteArray &key)
    {
        const HttpReply charge =
            post("/v1/charges", "amount=4200&currency=cny&source=tok_visa", key);
        EXPECT_EQ(charge.status, 200) << charge.body.constData();
        EXPECT_EQ(field(charge, "status"), QStringLiteral("succeeded"));
        return field(charge, "id");
    }

    // An authorized, not yet captured charge of 34.88 CNY.
    QString authorizedCharge()
    {
        const HttpReply authorized =
            post("/v1/charges", "amount=3488&currency=cny&source=tok_visa&capture=false", "auth");
        EXPECT_EQ(authorized.status, 200) << authorized.body.constData();
        return field(authorized, "id");
    }

    // A sale of 34.88 CNY whose authorization crosses the network as `transit` says.
    HttpReply chargeThrough(Transit transit)
    {
        m_transit->next(transit);
        return post("/v1/charges", "amount=3488&currency=cny&source=tok_visa", "k1");
    }

    // A full refund of charge `id` under `key`, crossing the network as `transit` says.
    HttpReply refundThrough(const QString &id, Transit transit, const QByteArray &key)
    {
        m_transit->next(transit);
        return post("/v1/refunds", "charge=" + id.toLatin1(), key);
    }

    // The charge's first capture, crossing the network as `transit` says.
    HttpReply captureThrough(const QString &id, Transit transit)
    {
        m_transit->next(transit);
        return post("/v1/charges/" + id.toLatin1() + "/capture", {}, "capture-1");
    }

    std::shared_ptr<SimulatedChannel> m_network;
    std::shared_ptr<NetworkInTransit> m_transit;
};

} // namespace

TEST_F(ChannelCloseTest, TheReconcilerClosesAnAuthorizationStillOnItsWayBeforeFailingIt)
{
    const HttpReply pending = chargeThrough(Transit::Hold);
    ASSERT_EQ(pending.status, 200) << pending.body.constData();
    ASSERT_EQ(field(pending, "status"), QStringLiteral("pending"));
    const QString id = field(pending, "id");

    // The network has not seen it yet: the reconciler closes it and fails it.
    reconcile();
    EXPECT_EQ(stateOf(id), QStringLiteral("Failed"));
    EXPECT_EQ(channelRecord(id, "authorize"), QStringLiteral("closed"));

    // Then the request arrives. The network refuses it instead of taking the
    // customer's money for a payment keel has failed.
    const std::optional<ChannelResult> late = m_transit->deliverHeld();
    ASSERT_TRUE(late.has_value());
    EXPECT_EQ(late->outcome, ChannelOutcome::Closed);
    EXPECT_EQ(channelRecord(id, "authorize"), QStringLiteral("closed"));
    expectBooksAgreeWithTheChannel();
}

TEST_F(ChannelCloseTest, AnAuthorizationThatArrivedFirstIsCapturedNotClosed)
{
    const HttpReply pending = chargeThrough(Transit::Hold);
    ASSERT_EQ(field(pending, "status"), QStringLiteral("pending"));
    const QString id = field(pending, "id");
    ASSERT_EQ(m_transit->deliverHeld()->outcome, ChannelOutcome::Approved);

    reconcile();
    expectSettledAs(id, "Captured", "approved");
}

TEST_F(ChannelCloseTest, ARefusalWhoseTwinGotThroughSettlesAsTheTwin)
{
    const HttpReply charge = chargeThrough(Transit::RefuseAfterTwin);
    ASSERT_EQ(charge.status, 200) << charge.body.constData();
    const QString id = field(charge, "id");
    EXPECT_EQ(field(charge, "status"), QStringLiteral("succeeded"));
    expectSettledAs(id, "Captured", "approved");
}

TEST_F(ChannelCloseTest, ARefusedAuthorizationIsClosedSoALateTwinIsRefusedToo)
{
    const HttpReply charge = chargeThrough(Transit::Refuse);
    ASSERT_EQ(charge.status, 402) << charge.body.constData();
    const QString id = json(charge)
                           .value(QLatin1String("error"))
                           .toObject()
                           .value(QLatin1String("charge"))
                           .toString();
    ASSERT_FALSE(id.isEmpty()) << charge.body.constData();
    EXPECT_EQ(stateOf(id), QStringLiteral("Failed"));
    EXPECT_EQ(channelRecord(id, "authorize"), QStringLiteral("closed"));

    const ChannelResult late =
        m_network->execute({id, QStringLiteral("authorize"), 3488, QStringLiteral("cny"),
                            QStringLiteral("tok_visa"), true});
    EXPECT_EQ(late.outcome, ChannelOutcome::Closed);
    expectBooksAgreeWithTheChannel();
}

TEST_F(ChannelCloseTest, ARefusalTheChannelCannotCloseStaysInFlight)
{
    m_transit->setCloseUnreachable(true);
    const HttpReply charge = chargeThrough(Transit::Refuse);
    ASSERT_EQ(charge.status, 200) << charge.body.constData();
    const QString id = field(charge, "id");
    EXPECT_EQ(field(charge, "status"), QStringLiteral("pending"));
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    EXPECT_EQ(channelRecord(id, "authorize"), QString());

    // Once the channel can close it, the reconciler does.
    m_transit->setCloseUnreachable(false);
    reconcile();
    EXPECT_EQ(stateOf(id), QStringLiteral("Failed"));
    EXPECT_EQ(channelRecord(id, "authorize"), QStringLiteral("closed"));
}

TEST_F(ChannelCloseTest, ARefundWhoseTwinGotThroughIsNotFailed)
{
    const QString id = capturedCharge("charge");
    const HttpReply refund = refundThrough(id, Transit::RefuseAfterTwin, "refund");
    ASSERT_EQ(refund.status, 200) << refund.body.constData();
    const QString refundId = field(refund, "id");
    EXPECT_EQ(field(refund, "status"), QStringLiteral("succeeded"));
    EXPECT_EQ(channelRecord(refundId, "refund"), QStringLiteral("approved"));
    EXPECT_EQ(stateOf(id), QStringLiteral("Refunded"));
    expectBooksAgreeWithTheChannel();
}

// "Never received" is a query's answer. Said to a request just sent (a
// channel whose record lags behind what it did), it proves nothing: the
// refund stays in flight for the reconciler, never failed, so the merchant
// cannot refund the same money twice.
TEST_F(ChannelCloseTest, ARefundAnsweredNotFoundStaysInFlightAndSettlesAsMade)
{
    const QString id = capturedCharge("charge");
    const HttpReply refund = refundThrough(id, Transit::ProcessedUnseen, "refund");
    ASSERT_EQ(refund.status, 200) << refund.body.constData();
    const QString refundId = field(refund, "id");
    EXPECT_EQ(field(refund, "status"), QStringLiteral("pending"));
    EXPECT_EQ(stateOf(id), QStringLiteral("Refunding"));
    reconcile();
    EXPECT_EQ(scalar("SELECT status FROM keel.refunds"), QStringLiteral("succeeded"));
    EXPECT_EQ(channelRecord(refundId, "refund"), QStringLiteral("approved"));
    expectBooksAgreeWithTheChannel();
}

TEST_F(ChannelCloseTest, AFailedRefundIsClosedSoTheMerchantCanRefundAgainSafely)
{
    const QString id = capturedCharge("charge");
    const HttpReply refused = refundThrough(id, Transit::Refuse, "refund-1");
    ASSERT_EQ(refused.status, 200) << refused.body.constData();
    const QString first = field(refused, "id");
    EXPECT_EQ(field(refused, "status"), QStringLiteral("failed"));
    EXPECT_EQ(channelRecord(first, "refund"), QStringLiteral("closed"));

    // The merchant refunds again; the first refund's twin arriving late is
    // refused, so the customer gets the money back once.
    const HttpReply again = post("/v1/refunds", "charge=" + id.toLatin1(), "refund-2");
    ASSERT_EQ(again.status, 200) << again.body.constData();
    EXPECT_EQ(field(again, "status"), QStringLiteral("succeeded"));
    const ChannelResult late =
        m_network->execute({first, QStringLiteral("refund"), 4200, QStringLiteral("cny"),
                            QStringLiteral("tok_visa"), true});
    EXPECT_EQ(late.outcome, ChannelOutcome::Closed);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sim_channel_operations WHERE operation = 'refund' "
                     "AND outcome = 'approved'"),
              QStringLiteral("1"));
    expectBooksAgreeWithTheChannel();
}

TEST_F(ChannelCloseTest, ARefusedCaptureIsNotClosedAndCanBeCapturedAgain)
{
    const QString id = authorizedCharge();
    const HttpReply refused = captureThrough(id, Transit::Refuse);
    EXPECT_EQ(refused.status, 402) << refused.body.constData();
    EXPECT_EQ(json(refused)
                  .value(QLatin1String("error"))
                  .toObject()
                  .value(QLatin1String("code"))
                  .toString(),
              QStringLiteral("processing_error"));
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorized"));
    EXPECT_EQ(channelRecord(id, "capture"), QString());

    const HttpReply captured = post("/v1/charges/" + id.toLatin1() + "/capture", {}, "capture-2");
    ASSERT_EQ(captured.status, 200) << captured.body.constData();
    EXPECT_EQ(stateOf(id), QStringLiteral("Captured"));
    EXPECT_EQ(channelRecord(id, "capture"), QStringLiteral("approved"));
    expectBooksAgreeWithTheChannel();
}

// A refused capture is not closed, so a twin of it still on its way can make
// it after keel said it had not happened: the reconciler asks again for a
// while and books the capture the channel made.
TEST_F(ChannelCloseTest, ACaptureMadeByATwinAfterARefusalIsBookedByTheReconciler)
{
    const QString id = authorizedCharge();
    const HttpReply refused = captureThrough(id, Transit::RefuseAfterTwin);
    EXPECT_EQ(refused.status, 402) << refused.body.constData();
    ASSERT_EQ(stateOf(id), QStringLiteral("Authorized"));
    ASSERT_EQ(channelRecord(id, "capture"), QStringLiteral("approved"));

    reconcile();
    EXPECT_EQ(stateOf(id), QStringLiteral("Captured"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_transactions WHERE kind = 'capture'"),
              QStringLiteral("1"));
    expectBooksAgreeWithTheChannel();
    // Asking again changes nothing.
    reconcile();
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_transactions WHERE kind = 'capture'"),
              QStringLiteral("1"));
}

TEST_F(ChannelCloseTest, ARefusedCaptureTheChannelNeverMadeStaysAuthorized)
{
    const QString id = authorizedCharge();
    captureThrough(id, Transit::Refuse);
    ASSERT_EQ(stateOf(id), QStringLiteral("Authorized"));
    reconcile();
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorized"));
    EXPECT_EQ(channelRecord(id, "capture"), QString());
}
