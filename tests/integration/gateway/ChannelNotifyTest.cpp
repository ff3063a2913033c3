// Notifications the channels POST to keel: each signature checked the way
// its channel specifies, a charge left in flight settled by a valid one
// (补单), repeats absorbed, replays and altered bytes refused and counted.
// The signatures are made here with keel's signers; SigningTest proves those
// byte for byte against openssl and python-cryptography.

#include "GatewayTest.h"
#include "SigningFiles.h"
#include "WechatPayNotice.h"

#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"
#include "core/ledger/Ledger.h"
#include "core/metrics/Metrics.h"
#include "core/payment/SentReverses.h"
#include "core/read/HistoryQuery.h"
#include "core/signing/AesGcm.h"
#include "core/signing/AlipaySignature.h"
#include "core/signing/RsaKey.h"
#include "core/signing/StripeSignature.h"
#include "core/signing/WechatPaySignature.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

#include <gtest/gtest.h>

using namespace keel;

using keel::test::jsonOf;
using keel::test::signingFile;

namespace {

QByteArray readSigningFile(const char *name)
{
    QFile file(signingFile(name));
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << name;
    return file.readAll().trimmed();
}

RsaKey privateKey(const char *name)
{
    Result<RsaKey> key = RsaKey::fromPem(readSigningFile(name), QString::fromLatin1(name));
    EXPECT_TRUE(key.ok()) << name;
    return key ? *key : RsaKey();
}

qint64 now()
{
    return QDateTime::currentSecsSinceEpoch();
}

// WeChat Pay's "code", or Stripe's error.code.
QString codeOf(const HttpReply &reply)
{
    const QJsonObject body = jsonOf(reply);
    const QJsonValue error = body.value(QLatin1String("error"));
    return (error.isObject() ? error.toObject() : body).value(QLatin1String("code")).toString();
}

quint64 counted(const char *channel, const char *verdict)
{
    return Metrics::instance().channelNotificationCount(QString::fromLatin1(channel),
                                                        QString::fromLatin1(verdict));
}

class ChannelNotifyTest : public keel::test::GatewayTest {
protected:
    void SetUp() override
    {
        GatewayTest::SetUp();
        if (HasFatalFailure())
            return;
        ChannelKeyFiles files;
        files.alipayPublicKey = signingFile("alipay.pub");
        files.wechatpayCertificates = {signingFile("wechatpay.crt")};
        files.wechatpayApiV3Key = signingFile("wechatpay.apiv3");
        files.stripeWebhookSecrets = {signingFile("stripe.secret")};
        Result<ChannelKeys> keys = ChannelKeys::load(files);
        ASSERT_TRUE(keys.ok()) << qPrintable(keys.error().message);
        m_options.channelKeys = std::make_shared<const ChannelKeys>(*std::move(keys));
        // Every answer is lost, so each charge stays Authorizing until the
        // channel's notification (or the reconciler, which these tests never run) settles it.
        m_channel.ambiguousRate = 1.0;
        startGateway();
    }

    // A charge of ¥19.99 left Authorizing; its id is keel's reference at the channel.
    QString pendingCharge(const QByteArray &key, const char *currency = "cny")
    {
        const HttpReply reply = post(
            "/v1/charges", QByteArray("amount=1999&source=tok_visa&currency=") + currency, key);
        EXPECT_EQ(reply.status, 200) << reply.body.constData();
        const QJsonObject charge = QJsonDocument::fromJson(reply.body).object();
        EXPECT_EQ(charge.value(QStringLiteral("status")).toString(), QStringLiteral("pending"));
        return charge.value(QStringLiteral("id")).toString();
    }

    QString stateOf(const QString &chargeId)
    {
        return scalar("SELECT s.state FROM keel.payment_state s JOIN keel.charges c "
                      "ON c.id = s.charge_id WHERE c.public_id = '" +
                      chargeId.toLatin1() + "'");
    }

    HttpReply postRaw(const QByteArray &path, const QByteArray &body,
                      HttpClient::Headers headers = {})
    {
        return m_client->request("POST", path, headers, body);
    }

    // Alipay's asynchronous notification for `chargeId`, signed with
    // Alipay's private key, as an application/x-www-form-urlencoded body.
    static AlipaySignature::Parameters
    alipayNotice(const QString &chargeId, const QString &notifyId,
                 const QString &amount = QStringLiteral("19.99"),
                 const QString &status = QStringLiteral("TRADE_SUCCESS"))
    {
        return {{QStringLiteral("notify_id"), notifyId},
                {QStringLiteral("notify_time"), QStringLiteral("2026-12-01 10:00:00")},
                {QStringLiteral("notify_type"), QStringLiteral("trade_status_sync")},
                {QStringLiteral("out_trade_no"), chargeId},
                {QStringLiteral("trade_no"), QStringLiteral("2026120122001")},
                {QStringLiteral("trade_status"), status},
                {QStringLiteral("total_amount"), amount},
                {QStringLiteral("subject"), QStringLiteral("咖啡 & 蛋糕")},
                {QStringLiteral("charset"), QStringLiteral("utf-8")}};
    }

    static QByteArray formBody(const AlipaySignature::Parameters &parameters)
    {
        QByteArrayList pairs;
        for (const auto &[key, value] : parameters)
            pairs << QUrl::toPercentEncoding(key) + '=' + QUrl::toPercentEncoding(value);
        return pairs.join('&');
    }

    QByteArray signedAlipay(AlipaySignature::Parameters parameters)
    {
        Result<QString> sign = AlipaySignature::sign(parameters, m_alipayKey);
        EXPECT_TRUE(sign.ok());
        parameters << qMakePair(QStringLiteral("sign_type"), QStringLiteral("RSA2"))
                   << qMakePair(QStringLiteral("sign"), sign ? *sign : QString());
        return formBody(parameters);
    }

    // WeChat Pay's notification: the transaction sealed with the APIv3 key
    // inside a `resource`, the whole body signed by the platform key.
    QByteArray wechatBody(const QString &eventId, const QString &chargeId, qint64 total,
                          const QByteArray &apiV3Key,
                          const QString &state = QStringLiteral("SUCCESS"))
    {
        return keel::test::wechatPayNoticeBody(eventId, chargeId, total, apiV3Key, state);
    }

    HttpClient::Headers wechatHeaders(const QByteArray &body, const QByteArray &nonce,
                                      qint64 at = now(), QByteArray serial = {},
                                      const RsaKey *key = nullptr)
    {
        if (serial.isEmpty())
            serial = m_wechatCertificate.certificateSerial().toLatin1();
        return keel::test::wechatPayNoticeHeaders(body, nonce, at, serial,
                                                  key ? *key : m_wechatKey);
    }

    static QByteArray stripeEvent(const QString &eventId, const QString &chargeId,
                                  const QString &type = QStringLiteral("charge.succeeded"))
    {
        const QJsonObject charge{{QStringLiteral("id"), QStringLiteral("ch_3Stripe")},
                                 {QStringLiteral("object"), QStringLiteral("charge")},
                                 {QStringLiteral("amount"), 1999},
                                 {QStringLiteral("currency"), QStringLiteral("cny")},
                                 {QStringLiteral("metadata"),
                                  QJsonObject{{QStringLiteral("keel_reference"), chargeId}}}};
        return QJsonDocument(QJsonObject{{QStringLiteral("id"), eventId},
                                         {QStringLiteral("object"), QStringLiteral("event")},
                                         {QStringLiteral("type"), type},
                                         {QStringLiteral("data"),
                                          QJsonObject{{QStringLiteral("object"), charge}}}})
            .toJson(QJsonDocument::Compact);
    }

    HttpReply postStripe(const QByteArray &body, const QByteArray &signature)
    {
        return postRaw("/v1/channels/stripe/webhook", body,
                       {{"Stripe-Signature", signature}, {"Content-Type", "application/json"}});
    }

    const QByteArray m_stripeSecret = readSigningFile("stripe.secret");
    const QByteArray m_apiV3Key = readSigningFile("wechatpay.apiv3");
    const RsaKey m_alipayKey = privateKey("alipay.key");
    const RsaKey m_wechatKey = privateKey("wechatpay.key");
    const RsaKey m_wechatCertificate = privateKey("wechatpay.crt");
};

} // namespace

TEST_F(ChannelNotifyTest, AlipaySettlesAChargeLeftAuthorizingAndARepeatChangesNothing)
{
    const QString charge = pendingCharge("alipay-1");
    ASSERT_EQ(stateOf(charge), QStringLiteral("Authorizing"));
    const quint64 appliedBefore = counted("alipay", "applied");

    const QByteArray body = signedAlipay(alipayNotice(charge, QStringLiteral("n-1")));
    const HttpReply first = postRaw("/v1/channels/alipay/notify", body);
    EXPECT_EQ(first.status, 200);
    EXPECT_EQ(first.body, QByteArray("success")); // what Alipay waits for before it stops
    EXPECT_EQ(stateOf(charge), QStringLiteral("Captured"));
    EXPECT_EQ(counted("alipay", "applied"), appliedBefore + 1);
    EXPECT_EQ(scalar("SELECT channel_reference FROM keel.charges"), QStringLiteral("2026120122001"))
        << "Alipay's trade_no, for statements that name the trade by it";
    const QString entries = scalar("SELECT count(*) FROM keel.ledger_entries");
    const QString events = scalar("SELECT count(*) FROM keel.payment_events");
    EXPECT_EQ(entries, QStringLiteral("2"));

    // Alipay repeats until it reads "success"; the repeat is absorbed.
    const HttpReply again = postRaw("/v1/channels/alipay/notify", body);
    EXPECT_EQ(again.body, QByteArray("success"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), entries);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.payment_events"), events);
    EXPECT_EQ(scalar("SELECT verdict FROM keel.channel_notifications"), QStringLiteral("applied"));

    // Had the channel's answer settled the charge without an id, a later
    // notice's would be kept; one kept is never replaced.
    scalar("UPDATE keel.charges SET channel_reference = NULL RETURNING 1");
    EXPECT_EQ(postRaw("/v1/channels/alipay/notify",
                      signedAlipay(alipayNotice(charge, QStringLiteral("n-2"))))
                  .body,
              QByteArray("success"));
    EXPECT_EQ(scalar("SELECT channel_reference FROM keel.charges"),
              QStringLiteral("2026120122001"));
    AlipaySignature::Parameters other = alipayNotice(charge, QStringLiteral("n-3"));
    for (auto &[name, value] : other)
        if (name == QLatin1String("trade_no"))
            value = QStringLiteral("2026120199999");
    EXPECT_EQ(postRaw("/v1/channels/alipay/notify", signedAlipay(other)).body,
              QByteArray("success"));
    EXPECT_EQ(scalar("SELECT channel_reference FROM keel.charges"),
              QStringLiteral("2026120122001"));

    // The client that looks the charge up now reads it settled.
    const HttpReply looked = get("/v1/charges/" + charge.toLatin1());
    EXPECT_EQ(jsonOf(looked).value(QLatin1String("status")).toString(), QStringLiteral("succeeded"))
        << looked.body.constData();
}

TEST_F(ChannelNotifyTest, AlipayRefusesAnyAlteredByteAndChangesNothing)
{
    const QString charge = pendingCharge("alipay-2");
    const quint64 mismatchBefore = counted("alipay", "mismatch");
    QByteArray body = signedAlipay(alipayNotice(charge, QStringLiteral("n-2")));
    body.replace("total_amount=19.99", "total_amount=19.90");

    const HttpReply refused = postRaw("/v1/channels/alipay/notify", body);
    EXPECT_EQ(refused.status, 401);
    EXPECT_EQ(refused.body, QByteArray("failure"));
    EXPECT_EQ(counted("alipay", "mismatch"), mismatchBefore + 1);
    EXPECT_EQ(stateOf(charge), QStringLiteral("Authorizing"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.channel_notifications"), QStringLiteral("0"));
}

TEST_F(ChannelNotifyTest, ASignedNoticeWithTheWrongAmountIsRecordedButNotApplied)
{
    const QString charge = pendingCharge("alipay-3");
    const HttpReply reply = postRaw(
        "/v1/channels/alipay/notify",
        signedAlipay(alipayNotice(charge, QStringLiteral("n-3"), QStringLiteral("1999.00"))));
    EXPECT_EQ(reply.body, QByteArray("success")); // received; a person looks at it
    EXPECT_EQ(stateOf(charge), QStringLiteral("Authorizing"));
    EXPECT_EQ(scalar("SELECT verdict || ' ' || amount FROM keel.channel_notifications"),
              QStringLiteral("amount_mismatch 199900"));
    // ... and a person has it in the suspense workbench, with nothing posted:
    // the charge is still in flight, its money not yet keel's to question.
    EXPECT_EQ(scalar("SELECT k.status || ' ' || k.amount || ' ' || (k.charge_id = c.id) FROM "
                     "keel.suspense_cases k JOIN keel.channel_notifications n ON n.id = "
                     "k.channel_notification_id JOIN keel.charges c ON c.public_id = n.reference"),
              QStringLiteral("open 0 true"));
}

TEST_F(ChannelNotifyTest, MoneyTheChannelTookForAChargeKeelNeverMadeIsHeldInSuspense)
{
    const HttpReply reply =
        postRaw("/v1/channels/alipay/notify",
                signedAlipay(alipayNotice(QStringLiteral("ch_unknown0000000001"),
                                          QStringLiteral("n-unknown"))));
    EXPECT_EQ(reply.body, QByteArray("success"));
    EXPECT_EQ(scalar("SELECT verdict FROM keel.channel_notifications"),
              QStringLiteral("unknown_charge"));
    EXPECT_EQ(scalar("SELECT status || ' ' || amount || ' ' || currency || ' ' || "
                     "(ledger_transaction_id IS NOT NULL) FROM keel.suspense_cases"),
              QStringLiteral("open 1999 CNY true"));
    EXPECT_EQ(scalar("SELECT string_agg(a.code || ' ' || e.amount, ', ' ORDER BY a.code) FROM "
                     "keel.ledger_entries e JOIN keel.ledger_accounts a ON a.id = e.account_id"),
              QStringLiteral("channel_clearing:CNY 1999, suspense:CNY -1999"));
    // Handing it back through the channel is an adjustment inside the case.
    EXPECT_EQ(scalar("SELECT coalesce(keel.adjustment_problem(id, '[{\"account\": "
                     "\"channel_clearing:CNY\", \"amount\": -1999}]'), 'none') FROM "
                     "keel.suspense_cases"),
              QStringLiteral("none"));
    auto session = LibpqConnection::open(settings());
    ASSERT_TRUE(session.ok());
    auto report = Ledger::audit(*session);
    ASSERT_TRUE(report.ok());
    EXPECT_TRUE(report->violations.isEmpty()) << qPrintable(report->violations.join(u'\n'));
}

TEST_F(ChannelNotifyTest, AFailureForACapturedChargeIsKeptAsAConflictAndChangesNothing)
{
    const QString charge = pendingCharge("alipay-4");
    postRaw("/v1/channels/alipay/notify",
            signedAlipay(alipayNotice(charge, QStringLiteral("n-4"))));
    ASSERT_EQ(stateOf(charge), QStringLiteral("Captured"));
    const HttpReply closed =
        postRaw("/v1/channels/alipay/notify",
                signedAlipay(alipayNotice(charge, QStringLiteral("n-5"), QStringLiteral("19.99"),
                                          QStringLiteral("TRADE_CLOSED"))));
    EXPECT_EQ(closed.body, QByteArray("success"));
    EXPECT_EQ(stateOf(charge), QStringLiteral("Captured"));
    EXPECT_EQ(scalar("SELECT verdict FROM keel.channel_notifications WHERE notice_id = 'n-5'"),
              QStringLiteral("conflicting"));
    EXPECT_EQ(scalar("SELECT count(*) || ' ' || min(amount) FROM keel.suspense_cases"),
              QStringLiteral("1 0"))
        << "the conflict waits for a person; keel's books still hold the capture";
    // The payment's own timeline shows what the channel said.
    auto db = QtSqlConnections::connect(settings(), QStringLiteral("notify-timeline"));
    ASSERT_TRUE(db.ok());
    auto timeline = HistoryQuery::timeline(*db, charge, {QStringLiteral("channel")});
    ASSERT_TRUE(timeline.ok()) << qPrintable(timeline.error().message);
    ASSERT_EQ(timeline->size(), 2);
    EXPECT_TRUE(timeline->at(1).summary.contains(QLatin1String("n-5: failed")))
        << qPrintable(timeline->at(1).summary);
    EXPECT_TRUE(timeline->at(1).summary.endsWith(QLatin1String("-> conflicting")));
}

// A WeChat Pay notification reaching a gateway that calls another channel
// (the simulated one here) is judged by the WeChat Pay reverses any process
// recorded: a payment one of them may still undo is not settled by it.
TEST_F(ChannelNotifyTest, WechatPayPaymentAReverseMayUndoIsNotSettledByItsNotification)
{
    const QString charge = pendingCharge("wechat-reversing");
    keel::SentReverses reverses(m_serviceLogin, QStringLiteral("wechatpay"));
    const keel::Result<qint64> copy = reverses.record(charge);
    ASSERT_TRUE(copy.ok());
    const QByteArray body = wechatBody(QStringLiteral("evt-wr"), charge, 1999, m_apiV3Key);
    const HttpReply refused =
        postRaw("/v1/channels/wechatpay/notify", body, wechatHeaders(body, "nonce-wr-1"));
    EXPECT_EQ(refused.status, 503) << refused.body.constData();
    EXPECT_EQ(stateOf(charge), QStringLiteral("Authorizing"));

    // Refused by WeChat Pay, the copy can undo nothing: the repeat settles it.
    ASSERT_TRUE(reverses.settle(*copy).ok());
    const HttpReply applied =
        postRaw("/v1/channels/wechatpay/notify", body, wechatHeaders(body, "nonce-wr-2"));
    EXPECT_EQ(applied.status, 204) << applied.body.constData();
    EXPECT_EQ(stateOf(charge), QStringLiteral("Captured"));
}

TEST_F(ChannelNotifyTest, WechatPaySettlesAChargeAndRefusesAReusedNonce)
{
    const QString charge = pendingCharge("wechat-1");
    const QByteArray body = wechatBody(QStringLiteral("evt-w1"), charge, 1999, m_apiV3Key);
    const HttpReply first =
        postRaw("/v1/channels/wechatpay/notify", body, wechatHeaders(body, "nonce-1"));
    EXPECT_EQ(first.status, 204) << first.body.constData();
    EXPECT_EQ(stateOf(charge), QStringLiteral("Captured"));
    EXPECT_EQ(scalar("SELECT channel_reference FROM keel.charges"),
              QStringLiteral("4200002026120100001"));

    // The same notification again, with a fresh nonce as WeChat Pay sends it.
    const HttpReply repeat =
        postRaw("/v1/channels/wechatpay/notify", body, wechatHeaders(body, "nonce-2"));
    EXPECT_EQ(repeat.status, 204);

    // A different notification under a nonce already used: a replay.
    const quint64 replayedBefore = counted("wechatpay", "replayed_nonce");
    const QString other = pendingCharge("wechat-2");
    const QByteArray otherBody = wechatBody(QStringLiteral("evt-w2"), other, 1999, m_apiV3Key);
    const HttpReply replayed =
        postRaw("/v1/channels/wechatpay/notify", otherBody, wechatHeaders(otherBody, "nonce-1"));
    EXPECT_EQ(replayed.status, 401);
    EXPECT_EQ(codeOf(replayed), QStringLiteral("FAIL"));
    EXPECT_EQ(counted("wechatpay", "replayed_nonce"), replayedBefore + 1);
    EXPECT_EQ(stateOf(other), QStringLiteral("Authorizing"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.channel_notifications"), QStringLiteral("1"));
}

TEST_F(ChannelNotifyTest, WechatPayRefusesOldTimestampsUnknownSerialsAndAlteredBytes)
{
    const QString charge = pendingCharge("wechat-3");
    const QByteArray body = wechatBody(QStringLiteral("evt-w3"), charge, 1999, m_apiV3Key);
    const quint64 windowBefore = counted("wechatpay", "outside_window");
    const quint64 serialBefore = counted("wechatpay", "unknown_key");
    const quint64 mismatchBefore = counted("wechatpay", "mismatch");

    const HttpReply old =
        postRaw("/v1/channels/wechatpay/notify", body, wechatHeaders(body, "nonce-3", now() - 301));
    EXPECT_EQ(old.status, 401);
    EXPECT_EQ(counted("wechatpay", "outside_window"), windowBefore + 1);

    const HttpReply unknown = postRaw("/v1/channels/wechatpay/notify", body,
                                      wechatHeaders(body, "nonce-4", now(), "5157F09EFDC096DE15"));
    EXPECT_EQ(unknown.status, 401);
    EXPECT_EQ(counted("wechatpay", "unknown_key"), serialBefore + 1);

    HttpClient::Headers headers = wechatHeaders(body, "nonce-5");
    QByteArray altered = body;
    altered.replace("evt-w3", "evt-w4");
    const HttpReply tampered = postRaw("/v1/channels/wechatpay/notify", altered, headers);
    EXPECT_EQ(tampered.status, 401);
    EXPECT_EQ(counted("wechatpay", "mismatch"), mismatchBefore + 1);

    // Signed correctly but sealed with another APIv3 key: unreadable.
    const QByteArray foreign = wechatBody(QStringLiteral("evt-w5"), charge, 1999,
                                          QByteArray("0123456789abcdef0123456789abcdef"));
    const HttpReply unreadable =
        postRaw("/v1/channels/wechatpay/notify", foreign, wechatHeaders(foreign, "nonce-6"));
    EXPECT_EQ(unreadable.status, 400);
    EXPECT_EQ(codeOf(unreadable), QStringLiteral("FAIL"));

    EXPECT_EQ(stateOf(charge), QStringLiteral("Authorizing"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.channel_notifications"), QStringLiteral("0"));
}

TEST_F(ChannelNotifyTest, StripeWebhookSettlesWithAnyLiveSecretInsideTheTolerance)
{
    const QString charge = pendingCharge("stripe-1");
    const QByteArray body = stripeEvent(QStringLiteral("evt_1"), charge);
    // Stripe signs with every live secret during a rotation: one v1 is ours.
    const QByteArray header = StripeSignature::header(
        QList<QByteArray>{"whsec_someoneElsesSecret", m_stripeSecret}, now(), body);
    const HttpReply accepted = postStripe(body, header);
    EXPECT_EQ(accepted.status, 200) << accepted.body.constData();
    EXPECT_EQ(accepted.body, QByteArray("{\"received\":true}"));
    EXPECT_EQ(stateOf(charge), QStringLiteral("Captured"));

    const QString other = pendingCharge("stripe-2");
    const QByteArray otherBody = stripeEvent(QStringLiteral("evt_2"), other);
    const quint64 windowBefore = counted("stripe", "outside_window");
    const HttpReply stale =
        postStripe(otherBody, StripeSignature::header(m_stripeSecret, now() - 301, otherBody));
    EXPECT_EQ(stale.status, 401);
    EXPECT_EQ(codeOf(stale), QStringLiteral("outside_window"));
    EXPECT_EQ(counted("stripe", "outside_window"), windowBefore + 1);

    const HttpReply wrongKey = postStripe(
        otherBody, StripeSignature::header(QByteArray("whsec_notOurs"), now(), otherBody));
    EXPECT_EQ(wrongKey.status, 401);
    const HttpReply noHeader = postStripe(otherBody, {});
    EXPECT_EQ(noHeader.status, 400);
    EXPECT_EQ(stateOf(other), QStringLiteral("Authorizing"));
}

TEST_F(ChannelNotifyTest, AnUnconfiguredChannelAndOtherMethodsAreRefused)
{
    m_gateway->stop();
    m_options.channelKeys = std::make_shared<const ChannelKeys>();
    startGateway();
    const HttpReply alipay = postRaw("/v1/channels/alipay/notify", "notify_id=1");
    EXPECT_EQ(alipay.status, 404);
    const HttpReply stripe = postStripe("{}", "t=1,v1=00");
    EXPECT_EQ(stripe.status, 404);
    EXPECT_EQ(codeOf(stripe), QStringLiteral("not_configured"));
    const HttpReply get = m_client->request("GET", "/v1/channels/wechatpay/notify");
    EXPECT_EQ(get.status, 405);
    const HttpReply unknown = postRaw("/v1/channels/paypal/notify", "{}");
    EXPECT_EQ(unknown.status, 404);
}

// A failed notice speaks of one attempt to pay; the payer may try again at
// the channel. keel closes the authorization there before failing it, and a
// close that finds the payment made settles it as made.
TEST_F(ChannelNotifyTest, AFailedNoticeClosesTheAuthorizationBeforeFailingIt)
{
    const QString charge = pendingCharge("failed-notice");
    // The network has not seen this one yet (its request is still on its way).
    scalar("DELETE FROM keel.sim_channel_operations WHERE reference = '" + charge.toLatin1() +
           "' RETURNING 1");
    const QByteArray body =
        stripeEvent(QStringLiteral("evt_f1"), charge, QStringLiteral("charge.failed"));
    const HttpReply accepted =
        postStripe(body, StripeSignature::header(m_stripeSecret, now(), body));
    EXPECT_EQ(accepted.status, 200) << accepted.body.constData();
    EXPECT_EQ(stateOf(charge), QStringLiteral("Failed"));
    EXPECT_EQ(scalar("SELECT outcome FROM keel.sim_channel_operations WHERE reference = '" +
                     charge.toLatin1() + "'"),
              QStringLiteral("closed"));
    SimulatedChannel network(settings(), {});
    EXPECT_EQ(network
                  .execute({charge, QStringLiteral("authorize"), 1999, QStringLiteral("cny"),
                            QStringLiteral("tok_visa"), true})
                  .outcome,
              ChannelOutcome::Closed);
}

TEST_F(ChannelNotifyTest, AFailedNoticeForAPaymentTheChannelMadeSettlesAsMade)
{
    const QString charge = pendingCharge("made-after-all"); // processed, answer lost
    const QByteArray body =
        stripeEvent(QStringLiteral("evt_f2"), charge, QStringLiteral("charge.failed"));
    const HttpReply accepted =
        postStripe(body, StripeSignature::header(m_stripeSecret, now(), body));
    EXPECT_EQ(accepted.status, 200) << accepted.body.constData();
    EXPECT_EQ(stateOf(charge), QStringLiteral("Captured"));
    auto connection = LibpqConnection::open(settings());
    ASSERT_TRUE(connection.ok());
    auto audit = Ledger::audit(*connection);
    ASSERT_TRUE(audit.ok());
    EXPECT_TRUE(audit->violations.isEmpty()) << qPrintable(audit->violations.join(u'\n'));
}

// WeChat Pay rotates its platform key. A notification signed with the new key
// is refused while keel holds only the old certificate; once the certificate
// list has been read (the WeChat Pay adapter reads it when an answer names
// the new serial, into the set the gateway's endpoint shares), the same
// notification settles the charge.
TEST_F(ChannelNotifyTest, WechatPayNotificationsFollowARotatedPlatformKey)
{
    const QString charge = pendingCharge("wechat-rotated");
    const QByteArray body = wechatBody(QStringLiteral("evt-rot"), charge, 1999, m_apiV3Key);
    const RsaKey next = privateKey("wechatpay-next.key");
    const QByteArray serial = privateKey("wechatpay-next.crt").certificateSerial().toLatin1();
    const HttpReply before = postRaw("/v1/channels/wechatpay/notify", body,
                                     wechatHeaders(body, "nonce-rot-1", now(), serial, &next));
    EXPECT_EQ(before.status, 401);
    EXPECT_EQ(stateOf(charge), QStringLiteral("Authorizing"));

    // The list as GET /v3/certificates answers it, signed with the new key.
    Result<QByteArray> sealed = AesGcm::seal(m_apiV3Key, "c3rtN0nce001", "certificate",
                                             readSigningFile("wechatpay-next.crt"));
    ASSERT_TRUE(sealed.ok());
    const QJsonObject entry{
        {QStringLiteral("serial_no"), QString::fromLatin1(serial)},
        {QStringLiteral("expire_time"), QStringLiteral("2099-01-01T00:00:00+08:00")},
        {QStringLiteral("encrypt_certificate"),
         QJsonObject{{QStringLiteral("algorithm"), QStringLiteral("AEAD_AES_256_GCM")},
                     {QStringLiteral("nonce"), QStringLiteral("c3rtN0nce001")},
                     {QStringLiteral("associated_data"), QStringLiteral("certificate")},
                     {QStringLiteral("ciphertext"), QString::fromLatin1(*sealed)}}}};
    const QByteArray list =
        QJsonDocument(QJsonObject{{QStringLiteral("data"), QJsonArray{entry}}}).toJson();
    Result<WechatPayHeaders> signedList =
        WechatPaySignature::sign(list, next, serial, now(), "list-nonce");
    ASSERT_TRUE(signedList.ok());
    const Result<int> added =
        m_options.channelKeys->wechatpayCertificates->adopt(*signedList, list, now());
    ASSERT_TRUE(added.ok()) << qPrintable(added.error().message);
    EXPECT_EQ(*added, 1);

    const HttpReply after = postRaw("/v1/channels/wechatpay/notify", body,
                                    wechatHeaders(body, "nonce-rot-2", now(), serial, &next));
    EXPECT_EQ(after.status, 204) << after.body.constData();
    EXPECT_EQ(stateOf(charge), QStringLiteral("Captured"));
}
