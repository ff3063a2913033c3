// Merchant notifications: written with the event, POSTed signed in Stripe's
// webhook scheme to a real HTTP receiver, retried, parked, recorded.

#include "GatewayTest.h"
#include "PlainHttpRefused.h"
#include "TestParticipant.h"
#include "WaitUntil.h"

#include "core/db/LibpqConnection.h"
#include "core/merchant/MerchantStore.h"
#include "core/metrics/Metrics.h"
#include "core/outbox/NotificationSender.h"
#include "core/read/HistoryQuery.h"
#include "core/runtime/NotificationLoop.h"
#include "core/signing/StripeSignature.h"

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>

#include <gtest/gtest.h>

using namespace keel;
using keel::test::TestParticipant;

namespace {

constexpr QByteArrayView NotifyPath = "/hooks/keel";

class NotificationTest : public keel::test::RunningGatewayTest {
protected:
    void SetUp() override
    {
        RunningGatewayTest::SetUp();
        if (HasFatalFailure())
            return;
        auto session = LibpqConnection::open(settings());
        ASSERT_TRUE(session.ok());
        m_session = std::make_unique<LibpqConnection>(std::move(session).value());
        ASSERT_TRUE(m_session
                        ->query("UPDATE keel.merchants SET notify_url = $2 WHERE id = $1",
                                {QByteArray::number(m_merchant.merchant.id),
                                 m_receiver.url(NotifyPath.toByteArray()).toUtf8()})
                        .ok());
        m_options.retryDelaysSeconds = {1, 1};
        m_options.timeoutMs = 3000;
    }

    QString charge(const QByteArray &key)
    {
        const HttpReply reply =
            post("/v1/charges", "amount=1999&currency=usd&source=tok_visa", key);
        EXPECT_EQ(reply.status, 200) << reply.body.constData();
        return QJsonDocument::fromJson(reply.body).object().value(QStringLiteral("id")).toString();
    }

    NotificationPass sendOnce()
    {
        auto pass = NotificationSender(*m_session, m_options).runOnce();
        EXPECT_TRUE(pass.ok()) << qPrintable(pass.error().message);
        return pass ? *pass : NotificationPass();
    }

    void makeDueNow()
    {
        ASSERT_TRUE(m_session
                        ->exec("UPDATE keel.notifications SET next_attempt_at = now() "
                               "WHERE status = 'pending'")
                        .ok());
    }

    QList<HttpRequest> received() const { return m_receiver.requests(NotifyPath.toByteArray()); }

    TestParticipant m_receiver;
    std::unique_ptr<LibpqConnection> m_session;
    NotificationOptions m_options;
};

} // namespace

TEST_F(NotificationTest, AChargeIsAnnouncedToTheMerchantAsASignedStripeEvent)
{
    const QString chargeId = charge("notify-1");
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.notifications"), QStringLiteral("1"));
    EXPECT_EQ(sendOnce().delivered, 1);
    const QList<HttpRequest> requests = received();
    ASSERT_EQ(requests.size(), 1);
    const HttpRequest &request = requests.first();
    // A Stripe library's check: the header against the raw body and the secret.
    EXPECT_EQ(StripeSignature::verify(request.header("stripe-signature").value_or(QByteArray()),
                                      request.body, {m_merchant.webhookSecret.toUtf8()},
                                      QDateTime::currentSecsSinceEpoch()),
              SignatureVerdict::Valid);
    EXPECT_EQ(StripeSignature::verify(request.header("stripe-signature").value_or(QByteArray()),
                                      request.body, {"whsec_someoneElse"},
                                      QDateTime::currentSecsSinceEpoch()),
              SignatureVerdict::Mismatch);
    const QJsonObject event = QJsonDocument::fromJson(request.body).object();
    EXPECT_TRUE(event.value(QStringLiteral("id")).toString().startsWith(QLatin1String("evt_")));
    EXPECT_EQ(event.value(QStringLiteral("object")).toString(), QStringLiteral("event"));
    EXPECT_EQ(event.value(QStringLiteral("type")).toString(), QStringLiteral("charge.succeeded"));
    EXPECT_GT(event.value(QStringLiteral("created")).toInteger(), 1700000000);
    const QJsonObject object =
        event.value(QStringLiteral("data")).toObject().value(QStringLiteral("object")).toObject();
    EXPECT_EQ(object.value(QStringLiteral("id")).toString(), chargeId);
    EXPECT_EQ(object.value(QStringLiteral("object")).toString(), QStringLiteral("charge"));
    EXPECT_EQ(object.value(QStringLiteral("amount")).toInteger(), 1999);
    EXPECT_EQ(scalar("SELECT status || ' ' || attempts FROM keel.notifications"),
              QStringLiteral("delivered 1"));
    EXPECT_EQ(scalar("SELECT http_status || ' ' || (latency_ms >= 0) FROM "
                     "keel.notification_attempts"),
              QStringLiteral("200 true"));
    // Delivered means done: nothing is sent again.
    makeDueNow();
    EXPECT_EQ(sendOnce().delivered, 0);
    EXPECT_EQ(received().size(), 1);
}

// Events to one merchant go over one kept-alive connection, not a new
// connection (and, over TLS, a new handshake) for each.
TEST_F(NotificationTest, OneMerchantsEventsShareAConnection)
{
    charge("notify-keep-1");
    charge("notify-keep-2");
    EXPECT_EQ(sendOnce().delivered, 2);
    charge("notify-keep-3");
    EXPECT_EQ(sendOnce().delivered, 1);
    EXPECT_EQ(received().size(), 3);
    EXPECT_EQ(m_receiver.connections(), 1);
}

TEST_F(NotificationTest, FailuresAreRetriedOnTheScheduleRecordedAndParkedAtTheEnd)
{
    m_receiver.program(NotifyPath.toByteArray(), {503, -1, "{\"busy\":true}"});
    const QString chargeId = charge("notify-2");
    NotificationPass pass = sendOnce();
    EXPECT_EQ(pass.failed, 1);
    EXPECT_EQ(sendOnce().failed, 0) << "not due again before its pause";
    EXPECT_EQ(scalar("SELECT (next_attempt_at > now()) || ' ' || last_error FROM "
                     "keel.notifications"),
              QStringLiteral("true the merchant answered 503"));
    makeDueNow();
    EXPECT_EQ(sendOnce().failed, 1);
    makeDueNow();
    EXPECT_EQ(sendOnce().parked, 1) << "the attempt after the last pause parks it";
    makeDueNow();
    EXPECT_EQ(sendOnce().failed + sendOnce().parked, 0) << "a parked notification is left alone";
    EXPECT_EQ(received().size(), 3);
    EXPECT_EQ(scalar("SELECT status FROM keel.notifications"), QStringLiteral("parked"));
    EXPECT_EQ(scalar("SELECT string_agg(attempt || ':' || http_status || ':' || response_excerpt, "
                     "',' ORDER BY attempt) FROM keel.notification_attempts"),
              QStringLiteral("1:503:{\"busy\":true},2:503:{\"busy\":true},3:503:{\"busy\":true}"));
    EXPECT_EQ(Metrics::instance().notificationCount(QStringLiteral("parked")) > 0, true);
    // The payment's timeline shows every attempt and the parking.
    auto timeline = HistoryQuery::timeline(db(), chargeId);
    ASSERT_TRUE(timeline.ok()) << qPrintable(timeline.error().message);
    QString all;
    for (const TimelineEntry &entry : *timeline)
        if (entry.source == QLatin1String("notification"))
            all += entry.summary + u'\n';
    EXPECT_EQ(all.count(QLatin1String("HTTP 503")), 3) << qPrintable(all);
    EXPECT_TRUE(all.contains(QLatin1String("parked after 3 attempts"))) << qPrintable(all);
}

TEST_F(NotificationTest, AMerchantThatCannotBeReachedIsAFailedAttemptWithTheReason)
{
    ASSERT_TRUE(m_session
                    ->query("UPDATE keel.merchants SET notify_url = 'http://127.0.0.1:9/x' "
                            "WHERE id = $1",
                            {QByteArray::number(m_merchant.merchant.id)})
                    .ok());
    charge("notify-3");
    EXPECT_EQ(sendOnce().failed, 1);
    EXPECT_EQ(scalar("SELECT (http_status IS NULL) || ' ' || (error <> '') FROM "
                     "keel.notification_attempts"),
              QStringLiteral("true true"));
}

// A notify URL of plain http:// that this deployment does not call (no
// --allow-http) is never sent to: it parks at once with the reason, for a
// person to resend once the merchant's URL is fixed, instead of failing for
// days on its schedule.
TEST_F(NotificationTest, AnHttpNotifyUrlTheDeploymentDoesNotCallParksAtOnceWithTheReason)
{
    charge("notify-plain");
    {
        test::PlainHttpRefused refused;
        EXPECT_EQ(sendOnce().parked, 1);
    }
    EXPECT_TRUE(received().isEmpty());
    EXPECT_EQ(scalar("SELECT status || ' ' || attempts || ' ' || (last_error LIKE '%plain "
                     "http://%') FROM keel.notifications"),
              QStringLiteral("parked 1 true"));
    EXPECT_EQ(scalar("SELECT (http_status IS NULL) || ' ' || (error LIKE '%refused%') FROM "
                     "keel.notification_attempts"),
              QStringLiteral("true true"));
}

TEST_F(NotificationTest, AfterARotationBothSecretsSignUntilTheOldOneExpires)
{
    Result<QString> rotated = MerchantStore(*m_session).rotateSecret(m_merchant.merchant.id, 24);
    ASSERT_TRUE(rotated.ok());
    EXPECT_TRUE(rotated->startsWith(QLatin1String("whsec_")));
    charge("notify-4");
    EXPECT_EQ(sendOnce().delivered, 1);
    const HttpRequest request = received().value(0);
    const QByteArray header = request.header("stripe-signature").value_or(QByteArray());
    EXPECT_EQ(header.count(",v1="), 2);
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    EXPECT_EQ(StripeSignature::verify(header, request.body, {rotated->toUtf8()}, now),
              SignatureVerdict::Valid);
    EXPECT_EQ(
        StripeSignature::verify(header, request.body, {m_merchant.webhookSecret.toUtf8()}, now),
        SignatureVerdict::Valid);
    // Once the old secret expires, only the new one signs.
    ASSERT_TRUE(
        m_session->exec("UPDATE keel.merchant_secrets SET previous_expires_at = now()").ok());
    charge("notify-5");
    EXPECT_EQ(sendOnce().delivered, 1);
    EXPECT_EQ(received().value(1).header("stripe-signature").value_or(QByteArray()).count(",v1="),
              1);
    EXPECT_FALSE(MerchantStore(*m_session).rotateSecret(987654, 24).ok());
}

TEST_F(NotificationTest, AMerchantWithoutANotifyUrlGetsNoNotifications)
{
    ASSERT_TRUE(m_session->exec("UPDATE keel.merchants SET notify_url = NULL").ok());
    charge("notify-6");
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.notifications"), QStringLiteral("0"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.outbox WHERE aggregate_type = 'charge'"),
              QStringLiteral("1"));
}

TEST_F(NotificationTest, TheWorkersSenderWakesOnTheNotificationInsteadOfItsPoll)
{
    // A poll of a minute: only NOTIFY keel_notifications can deliver in time.
    auto loop = NotificationLoop::start({settings(), m_options, 2, 60000});
    ASSERT_TRUE(keel::test::waitUntil([&] { return loop->listening(); }));
    charge("notify-7");
    EXPECT_TRUE(keel::test::waitUntil([&] { return received().size() == 1; }, 10000));
    EXPECT_TRUE(keel::test::waitUntil(
        [&] {
            return scalar("SELECT status FROM keel.notifications") == QLatin1String("delivered");
        },
        5000));
    loop->stop();
}
