#include "GatewayTest.h"
#include "WaitUntil.h"

#include "core/api/StripeReplies.h"
#include "core/db/LibpqConnection.h"
#include "core/idempotency/IdempotencyStore.h"
#include "core/ledger/Ledger.h"
#include "core/metrics/PaymentStateFold.h"
#include "core/payment/PaymentContext.h"
#include "core/payment/Reconciler.h"
#include "core/reference/CurrencyStore.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryFile>
#include <QThread>

using namespace keel;
using keel::test::GatewayTest;

namespace {

QJsonObject json(const HttpReply &reply)
{
    return QJsonDocument::fromJson(reply.body).object();
}

QString errorParam(const HttpReply &reply)
{
    return json(reply)
        .value(QStringLiteral("error"))
        .toObject()
        .value(QStringLiteral("param"))
        .toString();
}

QString errorCode(const HttpReply &reply)
{
    return json(reply)
        .value(QStringLiteral("error"))
        .toObject()
        .value(QStringLiteral("code"))
        .toString();
}

const QByteArray Charge = "amount=1000&currency=usd&source=tok_visa&metadata[order]=42";

} // namespace

class GatewayApiTest : public keel::test::RunningGatewayTest {};

TEST_F(GatewayApiTest, NewChargeIsCapturedPostedAndAnnounced)
{
    const HttpReply reply = post("/v1/charges", Charge, "order-42");
    ASSERT_EQ(reply.status, 200) << reply.body.constData();
    const QJsonObject charge = json(reply);
    EXPECT_TRUE(charge.value(QStringLiteral("id")).toString().startsWith(QLatin1String("ch_")));
    EXPECT_EQ(charge.value(QStringLiteral("object")).toString(), QStringLiteral("charge"));
    EXPECT_EQ(charge.value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    EXPECT_EQ(charge.value(QStringLiteral("amount_captured")).toInteger(), 1000);
    EXPECT_EQ(charge.value(QStringLiteral("currency")).toString(), QStringLiteral("usd"));
    EXPECT_EQ(charge.value(QStringLiteral("metadata"))
                  .toObject()
                  .value(QStringLiteral("order"))
                  .toString(),
              QStringLiteral("42"));
    EXPECT_TRUE(reply.header("idempotent-replayed").isEmpty());
    EXPECT_EQ(scalar("SELECT state || '/' || version FROM keel.payment_state"),
              QStringLiteral("Captured/2"));
    EXPECT_EQ(scalar("SELECT string_agg(event_type, ',' ORDER BY id) FROM keel.payment_events"),
              QStringLiteral("submit,auth_ok,capture,capture_ok"));
    EXPECT_EQ(scalar("SELECT count(*) || ':' || sum(amount) FROM keel.ledger_entries"),
              QStringLiteral("2:0"));
    EXPECT_EQ(scalar("SELECT event_type FROM keel.outbox"), QStringLiteral("charge.succeeded"));
    EXPECT_EQ(scalar("SELECT status FROM keel.idempotency_keys"), QStringLiteral("done"));
}

TEST_F(GatewayApiTest, SameKeyReplaysTheFirstResponseByteForByte)
{
    const HttpReply first = post("/v1/charges", Charge, "replay-me");
    ASSERT_EQ(first.status, 200);
    const HttpReply second = post("/v1/charges", Charge, "replay-me");
    EXPECT_EQ(second.status, 200);
    EXPECT_EQ(second.body, first.body);
    EXPECT_EQ(second.header("idempotent-replayed"), QByteArray("true"));
    EXPECT_EQ(second.header("content-type"), first.header("content-type"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QStringLiteral("1"));
}

TEST_F(GatewayApiTest, ErrorResponsesReplayToo)
{
    const QByteArray declined =
        "amount=700&currency=usd&source=tok_chargeDeclinedInsufficientFunds";
    const HttpReply first = post("/v1/charges", declined, "declined-once");
    ASSERT_EQ(first.status, 402);
    EXPECT_EQ(errorCode(first), QStringLiteral("card_declined"));
    EXPECT_EQ(json(first)
                  .value(QStringLiteral("error"))
                  .toObject()
                  .value(QStringLiteral("decline_code"))
                  .toString(),
              QStringLiteral("insufficient_funds"));
    const HttpReply again = post("/v1/charges", declined, "declined-once");
    EXPECT_EQ(again.status, 402);
    EXPECT_EQ(again.body, first.body);
    EXPECT_EQ(again.header("idempotent-replayed"), QByteArray("true"));
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state"), QStringLiteral("Failed"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("0"));
}

TEST_F(GatewayApiTest, JsonAndFormBodiesOfTheSameOrderShareAFingerprint)
{
    ASSERT_EQ(post("/v1/charges", Charge, "either-way").status, 200);
    const HttpReply asJson = m_client->request(
        "POST", "/v1/charges",
        auth() + HttpClient::Headers{{"Content-Type", "application/json"},
                                     {"Idempotency-Key", "either-way"}},
        R"({"metadata": {"order": "42"}, "source": "tok_visa", "currency": "usd", "amount": 1000})");
    EXPECT_EQ(asJson.status, 200) << asJson.body.constData();
    EXPECT_EQ(asJson.header("idempotent-replayed"), QByteArray("true"));
}

TEST_F(GatewayApiTest, QuotedStructuredFieldKeyEqualsTheBareKey)
{
    ASSERT_EQ(post("/v1/charges", Charge, "sf-key-1").status, 200);
    const HttpReply quoted = post("/v1/charges", Charge, "\"sf-key-1\"");
    EXPECT_EQ(quoted.status, 200);
    EXPECT_EQ(quoted.header("idempotent-replayed"), QByteArray("true"));
}

TEST_F(GatewayApiTest, SameKeyWithDifferentParametersIs422)
{
    ASSERT_EQ(post("/v1/charges", Charge, "reused").status, 200);
    const HttpReply other =
        post("/v1/charges", "amount=1001&currency=usd&source=tok_visa", "reused");
    EXPECT_EQ(other.status, 422);
    EXPECT_EQ(json(other)
                  .value(QStringLiteral("error"))
                  .toObject()
                  .value(QStringLiteral("type"))
                  .toString(),
              QStringLiteral("idempotency_error"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QStringLiteral("1"));
}

TEST_F(GatewayApiTest, KeysAreScopedToTheMerchant)
{
    ASSERT_EQ(post("/v1/charges", Charge, "shared-key").status, 200);
    auto session = LibpqConnection::open(settings());
    auto other = MerchantStore(*session).create(QStringLiteral("Other"), {});
    ASSERT_TRUE(other.ok());
    const HttpReply theirs =
        m_client->request("POST", "/v1/charges",
                          {{"Authorization", "Bearer " + other->apiKey.toLatin1()},
                           {"Idempotency-Key", "shared-key"}},
                          "amount=5&currency=usd&source=tok_visa");
    EXPECT_EQ(theirs.status, 200);
    EXPECT_TRUE(theirs.header("idempotent-replayed").isEmpty());
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QStringLiteral("2"));
}

TEST_F(GatewayApiTest, SameOrderNumberUnderANewKeyReturnsTheFirstCharge)
{
    const HttpReply first = post("/v1/charges", Charge + "&out_trade_no=T-1001", "key-a");
    ASSERT_EQ(first.status, 200);
    const HttpReply again = post("/v1/charges", Charge + "&out_trade_no=T-1001", "key-b");
    EXPECT_EQ(again.status, 200);
    EXPECT_EQ(json(again).value(QStringLiteral("id")), json(first).value(QStringLiteral("id")));
    const HttpReply conflict = post(
        "/v1/charges", "amount=9999&currency=usd&source=tok_visa&out_trade_no=T-1001", "key-c");
    EXPECT_EQ(conflict.status, 400);
    EXPECT_EQ(errorParam(conflict), QStringLiteral("out_trade_no"));
    EXPECT_TRUE(
        conflict.body.contains(json(first).value(QStringLiteral("id")).toString().toLatin1()));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QStringLiteral("1"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("2"));
}

TEST_F(GatewayApiTest, AuthorizeThenCaptureThenRefundInParts)
{
    const HttpReply authorized =
        post("/v1/charges", "amount=5000&currency=cny&source=tok_visa&capture=false", "auth-only");
    ASSERT_EQ(authorized.status, 200);
    EXPECT_EQ(json(authorized).value(QStringLiteral("captured")).toBool(), false);
    const QByteArray id = json(authorized).value(QStringLiteral("id")).toString().toLatin1();
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("0"));

    const HttpReply captured = post("/v1/charges/" + id + "/capture", {}, {});
    ASSERT_EQ(captured.status, 200) << captured.body.constData();
    EXPECT_EQ(json(captured).value(QStringLiteral("amount_captured")).toInteger(), 5000);
    const HttpReply twice = post("/v1/charges/" + id + "/capture", {}, {});
    EXPECT_EQ(twice.status, 400);
    EXPECT_EQ(errorCode(twice), QStringLiteral("charge_already_captured"));

    const HttpReply part = post("/v1/refunds", "charge=" + id + "&amount=2000", "refund-1");
    ASSERT_EQ(part.status, 200) << part.body.constData();
    EXPECT_EQ(json(part).value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state"), QStringLiteral("Captured"));
    const HttpReply tooMuch = post("/v1/refunds", "charge=" + id + "&amount=3001", "refund-2");
    EXPECT_EQ(tooMuch.status, 400);
    EXPECT_EQ(errorParam(tooMuch), QStringLiteral("amount"));
    const HttpReply rest = post("/v1/refunds", "charge=" + id, "refund-3");
    ASSERT_EQ(rest.status, 200);
    EXPECT_EQ(json(rest).value(QStringLiteral("amount")).toInteger(), 3000);
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state"), QStringLiteral("Refunded"));
    const HttpReply fetched = get("/v1/charges/" + id);
    EXPECT_EQ(json(fetched).value(QStringLiteral("amount_refunded")).toInteger(), 5000);
    EXPECT_EQ(json(fetched).value(QStringLiteral("refunded")).toBool(), true);
    const HttpReply refund =
        get("/v1/refunds/" + json(part).value(QStringLiteral("id")).toString().toLatin1());
    EXPECT_EQ(refund.status, 200);

    auto session = LibpqConnection::open(settings());
    auto audit = Ledger::audit(*session);
    ASSERT_TRUE(audit.ok());
    EXPECT_TRUE(audit->violations.isEmpty()) << qPrintable(audit->violations.join(u'\n'));
    EXPECT_EQ(audit->transactions, 3);
}

TEST_F(GatewayApiTest, RefundedChargeCannotGoBackToCaptured)
{
    const HttpReply charge = post("/v1/charges", Charge, "c1");
    const QByteArray id = json(charge).value(QStringLiteral("id")).toString().toLatin1();
    ASSERT_EQ(post("/v1/refunds", "charge=" + id, "r1").status, 200);
    const HttpReply again = post("/v1/refunds", "charge=" + id, "r2");
    EXPECT_EQ(again.status, 400);
    EXPECT_EQ(errorCode(again), QStringLiteral("charge_not_refundable"));
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state"), QStringLiteral("Refunded"));
}

TEST_F(GatewayApiTest, AmbiguousAnswerStaysPendingUntilTheChannelIsAsked)
{
    m_gateway->stop();
    m_channel.ambiguousRate = 1.0;
    startGateway();
    const HttpReply pending = post("/v1/charges", Charge, "lost-answer");
    ASSERT_EQ(pending.status, 200) << pending.body.constData();
    EXPECT_EQ(json(pending).value(QStringLiteral("status")).toString(), QStringLiteral("pending"));
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state"), QStringLiteral("Authorizing"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("0"));

    // The reconciler asks the channel (补单), which did process it.
    PaymentContext context;
    context.settings = settings();
    context.channel = std::make_shared<SimulatedChannel>(settings(), SimulatedChannelConfig{});
    auto session = LibpqConnection::open(settings());
    auto currencies = loadCurrencies(*session);
    context.currencies = *currencies;
    StripeReplies replies;
    auto report = Reconciler(context, *session, replies).runOnce(0);
    ASSERT_TRUE(report.ok());
    EXPECT_EQ(report->resolved, 1);
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state"), QStringLiteral("Captured"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("2"));
    const HttpReply now =
        get("/v1/charges/" + json(pending).value(QStringLiteral("id")).toString().toLatin1());
    EXPECT_EQ(json(now).value(QStringLiteral("status")).toString(), QStringLiteral("succeeded"));
}

// Regression (79a17c3): ledger account ids were cached even when made inside a
// transaction that rolled back, and every later posting in that currency then
// failed its foreign key. The cache is per process, so the test shares it with
// the in-process gateway.
TEST_F(GatewayApiTest, AccountsMadeInARolledBackTransactionAreNotRemembered)
{
    auto connection = LibpqConnection::open(settings());
    ASSERT_TRUE(connection.ok());
    ASSERT_TRUE(connection->exec("BEGIN").ok());
    ASSERT_TRUE(
        Ledger(*connection).prepareAccounts(m_merchant.merchant.id, QStringLiteral("EUR")).ok());
    ASSERT_TRUE(connection->exec("ROLLBACK").ok());
    ASSERT_EQ(scalar("SELECT count(*) FROM keel.ledger_accounts WHERE code LIKE "
                     "'merchant_payable:%:EUR'"),
              QStringLiteral("0"));
    const HttpReply charge =
        post("/v1/charges", "amount=500&currency=eur&source=tok_visa", "after-rollback");
    EXPECT_EQ(charge.status, 200) << charge.body.constData();
    auto audit = Ledger::audit(*connection);
    ASSERT_TRUE(audit.ok());
    EXPECT_EQ(audit->transactions, 1);
    EXPECT_TRUE(audit->violations.isEmpty()) << qPrintable(audit->violations.join(u'\n'));
}

TEST_F(GatewayApiTest, MetricsAreValidPrometheusTextWithoutIds)
{
    ASSERT_EQ(post("/v1/charges", Charge, "m1").status, 200);
    ASSERT_EQ(post("/v1/charges", Charge, "m1").status, 200);
    ASSERT_EQ(post("/v1/charges", "amount=1&currency=usd&source=tok_visa", "m1").status, 422);
    const HttpReply metrics = m_client->request("GET", "/metrics");
    ASSERT_EQ(metrics.status, 200);
    EXPECT_TRUE(metrics.header("content-type").startsWith("text/plain"));
    EXPECT_FALSE(metrics.body.contains("ch_")) << "charge ids must never be labels";
    EXPECT_TRUE(metrics.body.contains("keel_idempotency_requests_total{outcome=\"replayed\"}"));
    EXPECT_TRUE(
        metrics.body.contains("keel_idempotency_requests_total{outcome=\"fingerprint_mismatch\"}"));
    EXPECT_TRUE(metrics.body.contains(
        "keel_payment_transitions_total{from=\"Capturing\",to=\"Captured\"}"));

    const QString promtool = QStandardPaths::findExecutable(QStringLiteral("promtool"));
    ASSERT_FALSE(promtool.isEmpty())
        << "promtool (Debian package prometheus) is needed to check the format";
    QProcess check;
    check.start(promtool, {QStringLiteral("check"), QStringLiteral("metrics")});
    check.write(metrics.body);
    check.closeWriteChannel();
    ASSERT_TRUE(check.waitForFinished(30000));
    EXPECT_EQ(check.exitCode(), 0)
        << check.readAllStandardOutput().constData() << check.readAllStandardError().constData();
}

TEST_F(GatewayApiTest, HealthzAnswersWithoutAnApiKey)
{
    const HttpReply health = m_client->request("GET", "/healthz");
    EXPECT_EQ(health.status, 200);
    EXPECT_EQ(json(health).value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
}

TEST_F(GatewayApiTest, MinuteRollupsRecordWhatOnlyTheProcessSees)
{
    ASSERT_EQ(post("/v1/charges", Charge, "r1").status, 200);
    ASSERT_EQ(post("/v1/charges", Charge, "r1").status, 200);
    ASSERT_EQ(post("/v1/charges", "amount=3&currency=usd&source=tok_visa", "r1").status, 422);
    ASSERT_EQ(post("/v1/charges", "amount=zero&currency=usd&source=tok_visa", "r2").status, 400);
    ASSERT_TRUE(m_gateway->flushMetrics().ok());
    const auto count = [this](const char *metric) {
        return scalar(
            QByteArray("SELECT coalesce(sum(count), 0) FROM keel.metrics_minute WHERE metric = '") +
            metric + "'");
    };
    EXPECT_EQ(count("idempotency.new"), QStringLiteral("1"));
    EXPECT_EQ(count("idempotency.replayed"), QStringLiteral("1"));
    EXPECT_EQ(count("idempotency.fingerprint_mismatch"), QStringLiteral("1"));
    EXPECT_EQ(count("http.charges_create.4xx"), QStringLiteral("2"));
    EXPECT_EQ(count("latency.charges_create"), QStringLiteral("4"));
    EXPECT_EQ(scalar("SELECT total FROM keel.metrics_minute WHERE metric = 'volume.capture.USD'"),
              QStringLiteral("1000"));
    EXPECT_EQ(scalar("SELECT count(DISTINCT source) FROM keel.metrics_minute"),
              QStringLiteral("1"));
    // A second flush adds only what happened since the first.
    ASSERT_EQ(post("/v1/charges", Charge, "r1").status, 200);
    ASSERT_TRUE(m_gateway->flushMetrics().ok());
    EXPECT_EQ(count("idempotency.replayed"), QStringLiteral("2"));
    EXPECT_EQ(count("idempotency.new"), QStringLiteral("1"));
}

TEST_F(GatewayApiTest, RefundWithALostAnswerIsSettledByTheReconciler)
{
    const HttpReply charge = post("/v1/charges", Charge, "to-refund");
    ASSERT_EQ(charge.status, 200);
    const QByteArray id = json(charge).value(QStringLiteral("id")).toString().toLatin1();
    m_gateway->stop();
    m_channel.ambiguousRate = 1.0;
    startGateway();
    const HttpReply pending = post("/v1/refunds", "charge=" + id, "refund-lost");
    ASSERT_EQ(pending.status, 200) << pending.body.constData();
    EXPECT_EQ(json(pending).value(QStringLiteral("status")).toString(), QStringLiteral("pending"));
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state"), QStringLiteral("Refunding"));

    PaymentContext context;
    context.settings = settings();
    context.channel = std::make_shared<SimulatedChannel>(settings(), SimulatedChannelConfig{});
    auto session = LibpqConnection::open(settings());
    context.currencies = *loadCurrencies(*session);
    StripeReplies replies;
    auto report = Reconciler(context, *session, replies).runOnce(0);
    ASSERT_TRUE(report.ok());
    EXPECT_EQ(report->examined, 1);
    EXPECT_EQ(report->failed, 0);
    EXPECT_EQ(report->resolved, 1);
    EXPECT_EQ(scalar("SELECT status FROM keel.refunds"), QStringLiteral("succeeded"));
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state"), QStringLiteral("Refunded"));
    auto audit = Ledger::audit(*session);
    ASSERT_TRUE(audit.ok());
    EXPECT_TRUE(audit->violations.isEmpty()) << qPrintable(audit->violations.join(u'\n'));
    EXPECT_EQ(audit->transactions, 2);
}

// Every other test runs the gateway as superuser, which would hide a missing
// grant; production runs it as a member of keel_gateway.
TEST_F(GatewayApiTest, RunsWithNothingButTheGatewayRolesGrants)
{
    m_gateway->stop();
    m_options.settings = loginAs(QStringLiteral("keel_gateway"));
    startGateway();
    const HttpReply charge = post("/v1/charges", Charge + "&out_trade_no=G-1", "as-gateway");
    ASSERT_EQ(charge.status, 200) << charge.body.constData();
    const QByteArray id = json(charge).value(QStringLiteral("id")).toString().toLatin1();
    EXPECT_EQ(post("/v1/charges", Charge + "&out_trade_no=G-1", "as-gateway").status, 200);
    EXPECT_EQ(post("/v1/charges", Charge + "&out_trade_no=G-1", "other-key").status, 200);
    EXPECT_EQ(post("/v1/refunds", "charge=" + id + "&amount=100", "refund-as-gateway").status, 200);
    const HttpReply auth = post(
        "/v1/charges", "amount=900&currency=jpy&source=tok_visa&capture=false", "auth-as-gateway");
    ASSERT_EQ(auth.status, 200) << auth.body.constData();
    EXPECT_EQ(post("/v1/charges/" + json(auth).value(QStringLiteral("id")).toString().toLatin1() +
                       "/capture",
                   {}, "cap")
                  .status,
              200);
    EXPECT_EQ(post("/v1/charges", "amount=5&currency=usd&source=tok_chargeDeclined",
                   "declined-as-gateway")
                  .status,
              402);
    EXPECT_EQ(get("/v1/charges/" + id).status, 200);
    EXPECT_EQ(m_client->request("GET", "/healthz").status, 200);
    ASSERT_TRUE(m_gateway->flushMetrics().ok());
    m_gateway->maintain(); // reconciler and sweeps, with the same grants
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.metrics_minute WHERE metric = 'idempotency.new'"),
              QStringLiteral("1"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_transactions"), QStringLiteral("3"));
}

TEST_F(GatewayApiTest, StateTotalsFoldedFromEventsMatchTheGatewaysPayments)
{
    // Every way a payment moves: captured, declined, authorized only,
    // captured later, refunded in part and in full.
    ASSERT_EQ(post("/v1/charges", Charge, "t-captured").status, 200);
    ASSERT_EQ(post("/v1/charges", "amount=900&currency=usd&source=tok_chargeDeclined", "t-declined")
                  .status,
              402);
    ASSERT_EQ(
        post("/v1/charges", "amount=700&currency=usd&source=tok_visa&capture=false", "t-authorized")
            .status,
        200);
    const HttpReply later =
        post("/v1/charges", "amount=800&currency=usd&source=tok_visa&capture=false", "t-later");
    const QByteArray laterId = json(later).value(QStringLiteral("id")).toString().toLatin1();
    ASSERT_EQ(post("/v1/charges/" + laterId + "/capture", {}, {}).status, 200);
    ASSERT_EQ(post("/v1/refunds", "charge=" + laterId + "&amount=100", "t-part").status, 200);
    const HttpReply refunded = post("/v1/charges", Charge, "t-refunded");
    ASSERT_EQ(post("/v1/refunds",
                   "charge=" + json(refunded).value(QStringLiteral("id")).toString().toLatin1(),
                   "t-full")
                  .status,
              200);

    auto session = LibpqConnection::open(settings());
    ASSERT_TRUE(session.ok());
    const QByteArray totals = "SELECT string_agg(state || '=' || payments, ',' ORDER BY state) "
                              "FROM keel.payment_state_totals WHERE payments <> 0";
    const QByteArray counted = "SELECT string_agg(state || '=' || n, ',' ORDER BY state) FROM "
                               "(SELECT state, count(*) AS n FROM keel.payment_state GROUP BY "
                               "state) s";
    // Other tests' transactions on the server may hold a horizon back a while.
    EXPECT_TRUE(keel::test::waitUntil(
        [&] { return PaymentStateFold::run(*session).ok() && scalar(totals) == scalar(counted); },
        20000));
    EXPECT_EQ(scalar(counted), QStringLiteral("Authorized=1,Captured=2,Failed=1,Refunded=1"));
}
