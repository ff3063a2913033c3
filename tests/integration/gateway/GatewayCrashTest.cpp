// A gateway killed in the middle of a capture or a refund, at each point where
// the work is split between commits: the payment is settled exactly once,
// whether the client retries with its key or never comes back (the reconciler
// then answers the key too).
#include "GatewayTest.h"
#include "WaitUntil.h"

#include "core/api/StripeReplies.h"
#include "core/channel/SimulatedChannel.h"
#include "core/db/LibpqConnection.h"
#include "core/ledger/Ledger.h"
#include "core/payment/PaymentContext.h"
#include "core/payment/Reconciler.h"
#include "core/reference/CurrencyStore.h"

#include <QJsonDocument>
#include <QJsonObject>

using namespace keel;
using keel::test::GatewayTest;
using keel::test::waitUntil;

namespace {

struct CrashCase {
    const char *point;     // KEEL_CHAOS_EXIT_AT
    const char *operation; // charge, capture or refund
    bool clientRetries;    // false: only the reconciler settles it
    const char *settledState;
    int status;       // what the client is finally told
    int channelCalls; // operations the channel saw for this request
};

void PrintTo(const CrashCase &crash, std::ostream *out)
{
    *out << crash.point << (crash.clientRetries ? "/retry" : "/reconciler");
}

QJsonObject json(const HttpReply &reply)
{
    return QJsonDocument::fromJson(reply.body).object();
}

} // namespace

class GatewayCrashTest : public GatewayTest, public ::testing::WithParamInterface<CrashCase> {
protected:
    // The request the doomed gateway dies in, after whatever it needs first.
    struct Request {
        QByteArray path;
        QByteArray body;
    };
    Request prepare()
    {
        const QByteArray operation = GetParam().operation;
        if (operation == "charge")
            return {"/v1/charges", "amount=700&currency=usd&source=tok_visa"};
        startGateway();
        const bool capture = operation == "capture";
        const HttpReply charge =
            post("/v1/charges",
                 capture ? "amount=700&currency=usd&source=tok_visa&capture=false"
                         : "amount=700&currency=usd&source=tok_visa",
                 "before-the-crash");
        EXPECT_EQ(charge.status, 200);
        const QByteArray id = json(charge).value(QStringLiteral("id")).toString().toLatin1();
        if (capture)
            return {"/v1/charges/" + id + "/capture", {}};
        return {"/v1/refunds", "charge=" + id};
    }

    Reconciler::Report reconcile()
    {
        PaymentContext context;
        context.settings = settings();
        context.channel = simulatedChannel()(settings());
        context.idempotency.lockTimeoutMs = 500;
        context.instance = QStringLiteral("reconciler-under-test");
        auto connection = LibpqConnection::open(settings());
        EXPECT_TRUE(connection.ok());
        context.currencies = *loadCurrencies(*connection);
        StripeReplies replies;
        auto report = Reconciler(context, *connection, replies).runOnce(0);
        EXPECT_TRUE(report.ok()) << qPrintable(report.error().message);
        return report ? *report : Reconciler::Report{};
    }
};

TEST_P(GatewayCrashTest, AKilledGatewaysPaymentIsSettledOnceAndItsKeyAnswered)
{
    const Request request = prepare();
    ASSERT_FALSE(HasFailure());
    const int operationsBefore = scalar("SELECT count(*) FROM keel.sim_channel_operations").toInt();
    crashGatewayAt(GetParam().point, request.path, request.body, "crash-here");
    ASSERT_FALSE(HasFailure());
    ASSERT_EQ(scalar("SELECT status FROM keel.idempotency_keys WHERE locked_by IS NOT NULL "
                     "AND status = 'processing'"),
              QStringLiteral("processing"));
    ASSERT_TRUE(waitUntil([&] {
        return scalar("SELECT bool_and(locked_at < now() - interval '500 ms') "
                      "FROM keel.idempotency_keys WHERE status = 'processing'") ==
               QLatin1String("t");
    }));

    HttpReply answer;
    if (GetParam().clientRetries) {
        QString survivorUrl;
        auto survivor =
            spawnGateway({QStringLiteral("--lock-timeout"), QStringLiteral("500")}, &survivorUrl);
        const auto toSurvivor = clientFor(survivorUrl);
        answer = post(request.path, request.body, "crash-here", {}, toSurvivor.get());
        EXPECT_TRUE(answer.header("idempotent-replayed").isEmpty());
        survivor->kill();
        survivor->waitForFinished();
    } else {
        const Reconciler::Report report = reconcile();
        EXPECT_EQ(report.resolved, 1);
        EXPECT_EQ(report.keysAnswered, 1);
        EXPECT_EQ(scalar("SELECT count(*) FROM keel.idempotency_keys WHERE status <> 'done'"),
                  QStringLiteral("0"));
        if (!m_gateway)
            startGateway();
        answer = post(request.path, request.body, "crash-here");
        EXPECT_EQ(answer.header("idempotent-replayed"), QByteArray("true"));
    }
    EXPECT_EQ(answer.status, GetParam().status) << answer.body.constData();
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state"),
              QLatin1String(GetParam().settledState));
    // The channel processed the operation at most once, however often it was asked about it;
    // a payment keel failed was closed at the channel first.
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sim_channel_operations WHERE outcome <> 'closed'")
                  .toInt(),
              operationsBefore + GetParam().channelCalls);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sim_channel_operations WHERE outcome = 'closed'"),
              QLatin1String(qstrcmp(GetParam().settledState, "Failed") == 0 ? "1" : "0"));
    auto connection = LibpqConnection::open(settings());
    auto audit = Ledger::audit(*connection);
    ASSERT_TRUE(audit.ok());
    EXPECT_TRUE(audit->violations.isEmpty()) << qPrintable(audit->violations.join(u'\n'));
}

INSTANTIATE_TEST_SUITE_P(
    CrashPoints, GatewayCrashTest,
    ::testing::Values(
        // The reconciler never authorizes anew: a charge the network never saw is closed there
        // and fails, and the key keeps that answer (402).
        CrashCase{"charge_reserved", "charge", false, "Failed", 402, 0},
        CrashCase{"charge_channel_answered", "charge", false, "Captured", 200, 1},
        // A retried capture goes through; the reconciler leaves one the network never saw
        // authorized, to be captured again.
        CrashCase{"capture_started", "capture", true, "Captured", 200, 1},
        CrashCase{"capture_started", "capture", false, "Authorized", 402, 0},
        CrashCase{"capture_channel_answered", "capture", true, "Captured", 200, 1},
        CrashCase{"capture_channel_answered", "capture", false, "Captured", 200, 1},
        // A refund the merchant asked for is carried out either way.
        CrashCase{"refund_started", "refund", true, "Refunded", 200, 1},
        CrashCase{"refund_started", "refund", false, "Refunded", 200, 1},
        CrashCase{"refund_channel_answered", "refund", true, "Refunded", 200, 1},
        CrashCase{"refund_channel_answered", "refund", false, "Refunded", 200, 1}));
