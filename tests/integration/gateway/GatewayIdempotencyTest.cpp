// Idempotency-Key semantics beyond the first charge: every keyed endpoint, a
// key shared between endpoints, a holder that is silent but not yet presumed
// dead, and keys that outlive their TTL.
#include "GatewayTest.h"
#include "WaitUntil.h"

#include "core/db/LibpqConnection.h"
#include "core/idempotency/IdempotencyStore.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

using namespace keel;
using keel::test::GatewayTest;
using keel::test::waitUntil;

namespace {

QJsonObject json(const HttpReply &reply)
{
    return QJsonDocument::fromJson(reply.body).object();
}

QJsonObject errorOf(const HttpReply &reply)
{
    return json(reply).value(QStringLiteral("error")).toObject();
}

QByteArray idOf(const HttpReply &reply)
{
    return json(reply).value(QStringLiteral("id")).toString().toLatin1();
}

const QByteArray Charge = "amount=1500&currency=usd&source=tok_visa";

} // namespace

class GatewayIdempotencyTest : public keel::test::RunningGatewayTest {};

TEST_F(GatewayIdempotencyTest, ARefundWithoutAKeyIs400AndWritesNothing)
{
    const HttpReply charge = post("/v1/charges", Charge, "refund-keyless-charge");
    ASSERT_EQ(charge.status, 200);
    const HttpReply refund = post("/v1/refunds", "charge=" + idOf(charge), {});
    EXPECT_EQ(refund.status, 400) << refund.body.constData();
    EXPECT_EQ(errorOf(refund).value(QStringLiteral("param")).toString(),
              QStringLiteral("Idempotency-Key"));
    EXPECT_EQ(errorOf(refund).value(QStringLiteral("code")).toString(),
              QStringLiteral("idempotency_key_missing"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.refunds"), QStringLiteral("0"));
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state"), QStringLiteral("Captured"));
}

TEST_F(GatewayIdempotencyTest, OneKeyReusedOnAnotherEndpointIs422)
{
    const HttpReply authorized =
        post("/v1/charges", "amount=900&currency=usd&source=tok_visa&capture=false", "shared-key");
    ASSERT_EQ(authorized.status, 200);
    const HttpReply capture =
        post("/v1/charges/" + idOf(authorized) + "/capture", {}, "shared-key");
    EXPECT_EQ(capture.status, 422) << capture.body.constData();
    EXPECT_EQ(errorOf(capture).value(QStringLiteral("code")).toString(),
              QStringLiteral("idempotency_key_in_use"));
    const HttpReply refund = post("/v1/refunds", "charge=" + idOf(authorized), "shared-key");
    EXPECT_EQ(refund.status, 422) << refund.body.constData();
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state"), QStringLiteral("Authorized"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.refunds"), QStringLiteral("0"));
}

TEST_F(GatewayIdempotencyTest, CaptureAndRefundReplayTheirFirstResponse)
{
    const HttpReply authorized =
        post("/v1/charges", "amount=900&currency=usd&source=tok_visa&capture=false", "auth-only");
    ASSERT_EQ(authorized.status, 200);
    const QByteArray capturePath = "/v1/charges/" + idOf(authorized) + "/capture";
    const HttpReply captured = post(capturePath, {}, "capture-once");
    ASSERT_EQ(captured.status, 200) << captured.body.constData();
    const HttpReply capturedAgain = post(capturePath, {}, "capture-once");
    EXPECT_EQ(capturedAgain.status, 200);
    EXPECT_EQ(capturedAgain.body, captured.body);
    EXPECT_EQ(capturedAgain.header("idempotent-replayed"), QByteArray("true"));
    // A new key on a captured charge is a new request, refused as such.
    EXPECT_EQ(post(capturePath, {}, "capture-twice").status, 400);

    const QByteArray refundBody = "charge=" + idOf(authorized) + "&amount=400";
    const HttpReply refunded = post("/v1/refunds", refundBody, "refund-once");
    ASSERT_EQ(refunded.status, 200) << refunded.body.constData();
    const HttpReply refundedAgain = post("/v1/refunds", refundBody, "refund-once");
    EXPECT_EQ(refundedAgain.body, refunded.body);
    EXPECT_EQ(refundedAgain.header("idempotent-replayed"), QByteArray("true"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.refunds"), QStringLiteral("1"));
    EXPECT_EQ(scalar("SELECT amount_captured || '/' || amount_refunded FROM keel.charges"),
              QStringLiteral("900/400"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sim_channel_operations"), QStringLiteral("3"));
}

// A holder that has gone quiet is not presumed dead until --lock-timeout has
// passed: until then a retry is told to wait (409), and nothing is redone.
TEST_F(GatewayIdempotencyTest, AKeyIsNotTakenOverBeforeTheLockTimeout)
{
    crashGatewayAt("charge_reserved", "/v1/charges", Charge, "quiet-holder");
    ASSERT_FALSE(HasFailure());

    QString survivorUrl;
    auto survivor =
        spawnGateway({QStringLiteral("--lock-timeout"), QStringLiteral("4000")}, &survivorUrl);
    const auto toSurvivor = clientFor(survivorUrl);
    const HttpReply early = post("/v1/charges", Charge, "quiet-holder", {}, toSurvivor.get());
    const QString lockAgeMs =
        scalar("SELECT (extract(epoch FROM now() - locked_at) * 1000)::bigint "
               "FROM keel.idempotency_keys");
    ASSERT_LT(lockAgeMs.toLongLong(), 4000) << "the machine was too slow to ask in time";
    EXPECT_EQ(early.status, 409) << early.body.constData();
    EXPECT_GE(early.header("retry-after").toInt(), 1);
    EXPECT_EQ(scalar("SELECT status || '/' || recovered_count FROM keel.idempotency_keys"),
              QStringLiteral("processing/0"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sim_channel_operations"), QStringLiteral("0"));

    ASSERT_TRUE(waitUntil([&] {
        return scalar("SELECT locked_at < now() - interval '4 s' FROM keel.idempotency_keys") ==
               QLatin1String("t");
    }));
    const HttpReply late = post("/v1/charges", Charge, "quiet-holder", {}, toSurvivor.get());
    EXPECT_EQ(late.status, 200) << late.body.constData();
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sim_channel_operations"), QStringLiteral("1"));
    survivor->kill();
    survivor->waitForFinished();
}

class GatewayKeyTtlTest : public GatewayTest {
protected:
    void SetUp() override
    {
        GatewayTest::SetUp();
        m_options.idempotency.ttlSeconds = 1;
        if (!HasFatalFailure())
            startGateway();
    }
    bool waitForExpiry(int keys)
    {
        return waitUntil([&] {
            return scalar("SELECT count(*) FROM keel.idempotency_keys WHERE expires_at < now()") ==
                   QString::number(keys);
        });
    }
};

// After the TTL the key is forgotten, but the order it made is not: the same
// request finds its charge through the order number the key derived, and a
// different request under that key cannot make a second charge either.
TEST_F(GatewayKeyTtlTest, AfterItsTtlAKeyIsANewRequestForTheSameOrder)
{
    const HttpReply first = post("/v1/charges", Charge, "short-lived");
    ASSERT_EQ(first.status, 200);
    EXPECT_EQ(post("/v1/charges", Charge, "short-lived").header("idempotent-replayed"),
              QByteArray("true"));
    ASSERT_TRUE(waitForExpiry(1));

    const HttpReply again = post("/v1/charges", Charge, "short-lived");
    EXPECT_EQ(again.status, 200);
    EXPECT_TRUE(again.header("idempotent-replayed").isEmpty());
    EXPECT_EQ(idOf(again), idOf(first));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QStringLiteral("1"));

    ASSERT_TRUE(waitForExpiry(1));
    const HttpReply other =
        post("/v1/charges", "amount=2500&currency=usd&source=tok_visa", "short-lived");
    EXPECT_EQ(other.status, 400) << other.body.constData();
    EXPECT_EQ(errorOf(other).value(QStringLiteral("code")).toString(),
              QStringLiteral("out_trade_no_conflict"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.charges"), QStringLiteral("1"));
}

TEST_F(GatewayKeyTtlTest, ExpiredKeysAreSweptOldestFirstInBatches)
{
    QList<QByteArray> charges;
    for (int i = 0; i < 5; ++i) {
        const HttpReply reply = post("/v1/charges", Charge, "sweep-" + QByteArray::number(i));
        ASSERT_EQ(reply.status, 200);
        charges << idOf(reply);
    }
    ASSERT_TRUE(waitForExpiry(5));
    auto connection = LibpqConnection::open(settings());
    ASSERT_TRUE(connection.ok());
    IdempotencyStore store(*connection, {}, QStringLiteral("test"));
    auto first = store.sweepExpired(2);
    ASSERT_TRUE(first.ok());
    EXPECT_EQ(*first, 2);
    QList<QByteArray> newest = charges.mid(2);
    std::sort(newest.begin(), newest.end());
    EXPECT_EQ(scalar("SELECT string_agg(resource_id, ',' ORDER BY resource_id) "
                     "FROM keel.idempotency_keys"),
              QString::fromLatin1(newest.join(',')))
        << "the two oldest keys go first";
    auto rest = store.sweepExpired(10);
    ASSERT_TRUE(rest.ok());
    EXPECT_EQ(*rest, 3);
}
