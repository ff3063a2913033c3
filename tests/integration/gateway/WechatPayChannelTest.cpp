// keel as WeChat Pay's client: the gateway's WechatPayChannel calling `keel
// channel-sim --protocol wechatpay` over TLS, each request signed with the
// merchant's API key and each answer verified with the platform
// certificate, as it would call api.mch.weixin.qq.com.

#include "ChannelAdapterTest.h"
#include "KeelProcess.h"
#include "SigningFiles.h"
#include "WechatPayNotice.h"

#include "core/channel/WechatPayChannel.h"
#include "core/db/LibpqConnection.h"
#include "core/money/Currency.h"
#include "core/payment/SentReverses.h"
#include "core/recon/ReconRun.h"
#include "core/recon/StatementStore.h"
#include "core/reference/CurrencyStore.h"
#include "core/signing/ChannelKeys.h"
#include "devkit/sim/ChannelSimulator.h"
#include "devkit/sim/SimStatement.h"

#include <QDateTime>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <gtest/gtest.h>

using namespace keel;
using keel::test::jsonOf;
using keel::test::signingFile;
using keel::test::startKeel;

namespace {

const QString MchId = QStringLiteral("1900000001");
const QString AppId = QStringLiteral("wx0000000000000001");
// A WeChat Pay payment code as a till's scanner reads it.
const QByteArray AuthCode = "134567890123456789";
const char *const Codepay = "POST /v3/pay/transactions/codepay";
const char *const Refund = "POST /v3/refund/domestic/refunds";
const char *const OrderQuery = "GET /v3/pay/transactions/out-trade-no/";
const char *const RefundQuery = "GET /v3/refund/domestic/refunds/";

QByteArray fileBytes(const char *name)
{
    QFile file(signingFile(name));
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << name;
    return file.readAll().trimmed();
}

RsaKey keyFile(const char *name)
{
    Result<RsaKey> key = readRsaKeyFile(signingFile(name), QString::fromLatin1(name));
    EXPECT_TRUE(key.ok()) << name;
    return key ? *key : RsaKey();
}

class WechatPayChannelTest : public keel::test::ChannelAdapterTest {
protected:
    WechatPayChannelTest() : ChannelAdapterTest(QStringLiteral("wechatpay call ")) {}

    // The simulated WeChat Pay in this process, over TLS, signing its
    // answers with `answerKey` and taking requests `merchantCertificate`
    // verifies; then the gateway, calling it with the merchant's key.
    void start(SimulatedChannelConfig behaviour = {}, const char *answerKey = "wechatpay.key",
               const char *merchantCertificate = "wechatpay-merchant.crt")
    {
        startSimulator(behaviour, answerKey, merchantCertificate);
        if (HasFatalFailure())
            return;
        m_remoteChannel = wechatpay();
        ASSERT_TRUE(m_remoteChannel);
        startGateway();
    }

    // The simulated WeChat Pay alone, (re)started on the same port: what it
    // processed is in the database, what it reversed is forgotten.
    void startSimulator(SimulatedChannelConfig behaviour, const char *answerKey = "wechatpay.key",
                        const char *merchantCertificate = "wechatpay-merchant.crt")
    {
        m_simulator.reset();
        ChannelSimulatorOptions options;
        options.settings = settings();
        options.behaviour = behaviour;
        options.http.port = m_simPort;
        options.http.threads = 2;
        options.http.tlsCertificateFile = m_pki.serverCertificate();
        options.http.tlsKeyFile = m_pki.serverKey();
        options.wechatpayGateway =
            WechatPayGatewayOptions{MchId, keyFile(merchantCertificate), keyFile(answerKey),
                                    keyFile(m_platformCertificate).certificateSerial().toLatin1()};
        options.wechatpayGateway->platformCertificatePem = fileBytes(m_platformCertificate);
        options.wechatpayGateway->apiV3Key = fileBytes("wechatpay.apiv3");
        Result<std::unique_ptr<ChannelSimulator>> simulator =
            ChannelSimulator::start(std::move(options));
        ASSERT_TRUE(simulator.ok()) << qPrintable(simulator.error().message);
        m_simulator = std::move(simulator).value();
    }

    ChannelFactory wechatpay()
    {
        WechatPayChannelOptions options;
        // The certificate names localhost: WeChat Pay is dialled by that name.
        options.api = QUrl(QStringLiteral("https://localhost:%1").arg(m_simPort));
        options.mchid = MchId;
        options.appid = AppId;
        options.merchantKey = keyFile("wechatpay-merchant.key");
        options.merchantSerial = keyFile("wechatpay-merchant.crt").certificateSerial().toLatin1();
        options.platformCertificates = {keyFile("wechatpay.crt")};
        options.apiV3Key = m_apiV3Key;
        options.timeoutMs = 2000;
        Result<ChannelFactory> channel = wechatpayChannel(std::move(options));
        EXPECT_TRUE(channel.ok()) << qPrintable(channel.error().message);
        return channel ? *channel : ChannelFactory{};
    }

    HttpReply charge(const QByteArray &key, const QByteArray &source = AuthCode)
    {
        return ChannelAdapterTest::charge(key, source);
    }

    // A charge made while WeChat Pay's every answer is lost: processed there
    // (paid, or refused for `source`), Authorizing in keel. Its id.
    QString chargeLeftInDoubt(const QByteArray &key, const QByteArray &source = AuthCode)
    {
        SimulatedChannelConfig losing;
        losing.ambiguousRate = 1;
        start(losing);
        const HttpReply charged = charge(key, source);
        const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
        EXPECT_FALSE(id.isEmpty()) << charged.body.constData();
        EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));
        return id;
    }

    // `keel channel-sim --protocol wechatpay` as its own process on the
    // simulator's port, signing as the platform certificate (or as `more` says).
    void startSimProcess(const QStringList &more = {})
    {
        QString simUrl;
        m_sim = keel::test::startKeel(
            QStringList{
                QStringLiteral("channel-sim"), QStringLiteral("--db"), settings().conninfo(),
                QStringLiteral("--listen"), QStringLiteral("127.0.0.1:%1").arg(m_simPort),
                QStringLiteral("--tls-cert"), m_pki.serverCertificate(),
                QStringLiteral("--tls-key"), m_pki.serverKey(), QStringLiteral("--protocol"),
                QStringLiteral("wechatpay"), QStringLiteral("--wechatpay-mchid"), MchId,
                QStringLiteral("--wechatpay-merchant-certificate"),
                signingFile("wechatpay-merchant.crt"), QStringLiteral("--wechatpay-platform-key"),
                signingFile("wechatpay.key"), QStringLiteral("--wechatpay-platform-certificate"),
                signingFile("wechatpay.crt")} +
                more,
            QStringLiteral("KEEL_CHANNEL"), &simUrl);
        ASSERT_FALSE(simUrl.isEmpty());
    }

    // The gateway verifies WeChat Pay's notifications (set before start()).
    void takeNotifications()
    {
        ChannelKeyFiles files;
        files.wechatpayCertificates = {signingFile("wechatpay.crt")};
        files.wechatpayApiV3Key = signingFile("wechatpay.apiv3");
        Result<ChannelKeys> keys = ChannelKeys::load(files);
        ASSERT_TRUE(keys.ok()) << qPrintable(keys.error().message);
        m_options.channelKeys = std::make_shared<const ChannelKeys>(*std::move(keys));
    }

    // WeChat Pay's notification that the charge was paid (¥19.99), as sent.
    HttpReply notifyPaid(const QString &chargeId, const char *eventId, const QByteArray &nonce)
    {
        const QByteArray notice = keel::test::wechatPayNoticeBody(
            QString::fromLatin1(eventId), chargeId, 1999, fileBytes("wechatpay.apiv3"));
        return m_client->request("POST", "/v1/channels/wechatpay/notify",
                                 keel::test::wechatPayNoticeHeaders(
                                     notice, nonce, QDateTime::currentSecsSinceEpoch(),
                                     keyFile("wechatpay.crt").certificateSerial().toLatin1(),
                                     keyFile("wechatpay.key")),
                                 notice);
    }

    // The certificate the simulated WeChat Pay signs as, and the APIv3 key
    // keel holds (empty: keel never reads the certificate list).
    const char *m_platformCertificate = "wechatpay.crt";
    QByteArray m_apiV3Key;
};

} // namespace

// A payment-code sale (codepay) and a partial refund under the order's
// out_trade_no, each answered and verified over TLS. WeChat Pay only accepts
// a refund (PROCESSING): it stays pending until the refund query says it was
// made. The charge keeps WeChat Pay's transaction_id, the refund its
// refund_id, and both are WeChat Pay's to reconcile.
TEST_F(WechatPayChannelTest, ASaleAndItsRefundRunThroughWechatPayOverTls)
{
    start();
    const HttpReply charged = charge("wechatpay-1");
    ASSERT_EQ(charged.status, 200) << charged.body.constData();
    EXPECT_EQ(jsonOf(charged).value(QLatin1String("status")).toString(),
              QStringLiteral("succeeded"));
    const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
    EXPECT_FALSE(scalar("SELECT channel_reference FROM keel.charges").isEmpty());
    EXPECT_EQ(scalar("SELECT channel FROM keel.charges"), QStringLiteral("wechatpay"));

    const HttpReply refunded =
        post("/v1/refunds", "charge=" + id.toLatin1() + "&amount=500", "wechatpay-1-refund");
    ASSERT_EQ(refunded.status, 200) << refunded.body.constData();
    EXPECT_EQ(jsonOf(refunded).value(QLatin1String("status")).toString(),
              QStringLiteral("pending"));
    EXPECT_EQ(reconcile().resolved, 1);
    EXPECT_EQ(scalar("SELECT status FROM keel.refunds"), QStringLiteral("succeeded"));
    EXPECT_FALSE(scalar("SELECT channel_reference FROM keel.refunds").isEmpty());
    EXPECT_EQ(calls(RefundQuery), 1);
    EXPECT_EQ(simRecord(), QStringLiteral("authorize approved 1999, refund approved 500"));
    EXPECT_EQ(calls(Codepay), 1);
    EXPECT_EQ(calls(Refund), 1);
}

// WeChat Pay's refusal is a decline carrying its code, once the order it may
// have left open is reversed: a copy of the request still on its way can no
// longer pay it.
TEST_F(WechatPayChannelTest, ARefusedPaymentIsReversedThenDeclinedWithWechatPaysReason)
{
    start();
    const HttpReply declined = charge("wechatpay-2", "tok_chargeDeclinedInsufficientFunds");
    ASSERT_EQ(declined.status, 402) << declined.body.constData();
    EXPECT_EQ(jsonOf(declined)
                  .value(QLatin1String("error"))
                  .toObject()
                  .value(QLatin1String("decline_code"))
                  .toString(),
              QStringLiteral("not_enough"));
    EXPECT_EQ(simRecord(), QStringLiteral("authorize declined 1999"));
    EXPECT_EQ(calls("POST /v3/pay/transactions/out-trade-no/"), 1); // the reverse
    EXPECT_EQ(scalar("SELECT state FROM keel.payment_state"), QStringLiteral("Failed"));
}

// A refused payment whose answer was lost: the order query says PAYERROR,
// which WeChat Pay leaves open for the payer to try again. It is reversed,
// and fails only once the order says REVOKED.
TEST_F(WechatPayChannelTest, AFailedAttemptFoundByQueryIsReversedBeforeThePaymentFails)
{
    const QString id = chargeLeftInDoubt("wechatpay-8", "tok_chargeDeclinedInsufficientFunds");
    ASSERT_FALSE(HasFailure());
    startSimulator({});
    EXPECT_EQ(reconcile().resolved, 1);
    EXPECT_EQ(stateOf(id), QStringLiteral("Failed"));
    EXPECT_EQ(calls("POST /v3/pay/transactions/out-trade-no/"), 1); // the reverse
    EXPECT_EQ(calls(Codepay), 1);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("0"));
}

// A reverse whose answer was lost may still give a payment back, so it is
// recorded before it is sent, for every process to see. Another process
// (a gateway after a restart, a worker) that finds the order REVOKED may
// believe it: no reverse undoes a closed order. It settles the copy, and
// the payment fails without another reverse.
TEST_F(WechatPayChannelTest, AReverseLeftUnansweredIsSettledWhenTheOrderReadsRevoked)
{
    const QString id = chargeLeftInDoubt("wechatpay-13", "tok_chargeDeclinedInsufficientFunds");
    ASSERT_FALSE(HasFailure());
    const char *const Reverse = "POST /v3/pay/transactions/out-trade-no/";
    const QByteArray unsettled =
        "SELECT count(*) FILTER (WHERE settled_at IS NULL) || '/' || count(*) "
        "FROM keel.channel_reverses WHERE channel = 'wechatpay' AND order_no = '" +
        id.toLatin1() + "'";

    reconcile(); // the order reads PAYERROR: reversed, and the answer lost
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    const int reversesSent = calls(Reverse);
    EXPECT_GE(reversesSent, 1);
    EXPECT_EQ(scalar(unsettled), QStringLiteral("1/1"));

    m_remoteChannel = wechatpay(); // another process, knowing nothing of it
    EXPECT_EQ(reconcile().resolved, 1);
    EXPECT_EQ(stateOf(id), QStringLiteral("Failed"));
    EXPECT_EQ(calls(Reverse), reversesSent);
    EXPECT_EQ(scalar(unsettled), QStringLiteral("0/1"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("0"));
}

// A payment keel may still reverse is not believed, whoever reports it: the
// order query or WeChat Pay's notification. The copy recorded here is what
// a process leaves while its reverse is on its way (it records the copy
// before it reads the order unpaid), and the payer pays meanwhile.
TEST_F(WechatPayChannelTest, APaymentIsNotBelievedWhileAReverseOfItMayStillLand)
{
    takeNotifications();
    ASSERT_FALSE(HasFailure());
    const QString id = chargeLeftInDoubt("wechatpay-14");
    ASSERT_FALSE(HasFailure());
    SentReverses elsewhere(m_serviceLogin, QStringLiteral("wechatpay"));
    const Result<qint64> onItsWay = elsewhere.record(id);
    ASSERT_TRUE(onItsWay.ok());

    startSimulator({});
    reconcile(); // reads SUCCESS: in doubt while the copy is unsettled
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    // An order read paid is never reversed, not even to learn that copy's fate.
    EXPECT_EQ(calls("POST /v3/pay/transactions/out-trade-no/"), 0);

    const HttpReply notified = notifyPaid(id, "evt-reverse-1", "nonce-reverse-1");
    EXPECT_EQ(notified.status, 503) << notified.body.constData();
    EXPECT_TRUE(notified.body.contains("reverse")) << notified.body.constData();
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));

    // Once that copy is known to have been refused, the payment stands.
    ASSERT_TRUE(elsewhere.settle(*onItsWay).ok());
    EXPECT_EQ(reconcile().resolved, 1);
    EXPECT_EQ(stateOf(id), QStringLiteral("Captured"));
}

// A "paid" read before the order closed (a reverse landed, and another
// process read REVOKED and settled its copies) may reach keel after: a late
// answer or a repeated notification. It is never believed; the order's
// closing decides. (No reverse reached the simulator here, which reads the
// order paid still.)
TEST_F(WechatPayChannelTest, APaymentReadBeforeItsOrderClosedIsNeverBelieved)
{
    takeNotifications();
    ASSERT_FALSE(HasFailure());
    const QString id = chargeLeftInDoubt("wechatpay-15");
    ASSERT_FALSE(HasFailure());
    SentReverses elsewhere(m_serviceLogin, QStringLiteral("wechatpay"));
    ASSERT_TRUE(elsewhere.record(id).ok());
    ASSERT_TRUE(elsewhere.settleOrder(id).ok()); // it read REVOKED
    EXPECT_EQ(elsewhere.standing(id).value().closed, true);

    startSimulator({});
    reconcile();
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    EXPECT_EQ(calls("POST /v3/pay/transactions/out-trade-no/"), 0); // nothing more to reverse
    const HttpReply notified = notifyPaid(id, "evt-closed-1", "nonce-closed-1");
    EXPECT_EQ(notified.status, 503) << notified.body.constData();
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));
}

// An order read paid is reversed only to finish what keel began: a copy
// left unsettled long past any sender's answer is sent again, so that its
// fate becomes known. WeChat Pay gives the payment back, the order reads
// REVOKED, and the payment fails with nothing booked; the trade bill then
// shows the order paid and given back, which reconciles to nothing.
TEST_F(WechatPayChannelTest, AStaleUnsettledReverseIsSentAgainToLearnItsFate)
{
    const QString id = chargeLeftInDoubt("wechatpay-16");
    ASSERT_FALSE(HasFailure());
    SentReverses elsewhere(m_serviceLogin, QStringLiteral("wechatpay"));
    ASSERT_TRUE(elsewhere.record(id).ok());
    // Recorded ten minutes ago (the trigger dates a copy itself: bypassed).
    scalar("SET session_replication_role = replica; UPDATE keel.channel_reverses SET sent_at = "
           "now() - interval '10 minutes'; SET session_replication_role = origin; SELECT 1");
    EXPECT_EQ(elsewhere.standing(id, 120).value().staleUnsettled, true);

    startSimulator({});
    reconcile();
    EXPECT_GE(calls("POST /v3/pay/transactions/out-trade-no/"), 1);
    EXPECT_EQ(stateOf(id), QStringLiteral("Failed"));
    EXPECT_EQ(scalar("SELECT count(*) FILTER (WHERE settled_at IS NULL) || '/' || count(*) "
                     "FROM keel.channel_reverses"),
              QStringLiteral("0/2")); // the order closed: every copy's fate is known
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("0"));
    EXPECT_EQ(scalar("SELECT string_agg(operation || ' ' || outcome || ' ' || amount, ', ' "
                     "ORDER BY operation) FROM keel.sim_channel_operations"),
              QStringLiteral("authorize approved 1999, reverse approved 1999"));

    // The simulator's trade bills, as the reconciliation service imports and
    // runs them day by day (the payment and its reverse may straddle
    // Beijing's midnight): the order paid and revoked matches the failed charge.
    Result<LibpqConnection> service = LibpqConnection::open(m_serviceLogin);
    ASSERT_TRUE(service.ok()) << qPrintable(service.error().message);
    const Result<CurrencyTable> currencies = loadCurrencies(*service);
    ASSERT_TRUE(currencies.ok());
    StatementLayout layout;
    layout.format = StatementFormat::WechatPay;
    layout.dayZone = QStringLiteral("Asia/Shanghai");
    QByteArray bills;
    int lines = 0;
    for (const QString &date :
         scalar("SELECT string_agg(DISTINCT (created_at AT TIME ZONE 'Asia/Shanghai')::date::text, "
                "' ') FROM keel.sim_channel_operations")
             .split(u' ')) {
        const QDate day = QDate::fromString(date, Qt::ISODate);
        const Result<QByteArray> bill = simulatorStatement(*service, day, 6000, {}, layout);
        ASSERT_TRUE(bill.ok()) << qPrintable(bill.error().message);
        bills += *bill;
        const Result<ImportedStatement> stored =
            importStatement(*service, QStringLiteral("wechatpay"),
                            {StatementFormat::WechatPay, *bill, {}}, *currencies);
        ASSERT_TRUE(stored.ok()) << qPrintable(stored.error().message);
        lines += int(stored->lines);
        ASSERT_TRUE(runReconciliation(*service, QStringLiteral("wechatpay"), day).ok());
    }
    EXPECT_TRUE(bills.contains("`REVOKED")) << bills.constData();
    EXPECT_EQ(lines, 2);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_breaks WHERE status <> 'resolved'"),
              QStringLiteral("0"));
    EXPECT_EQ(scalar("SELECT matched FROM keel.recon_runs ORDER BY id DESC LIMIT 1"),
              QStringLiteral("1"));
}

// A payment code is sent once: a request that may not be the first (a key
// taken over from a stalled holder) does not send it again, and the order
// query decides.
TEST_F(WechatPayChannelTest, APaymentCodeIsNeverSentAgainByATakeover)
{
    start();
    const std::shared_ptr<Channel> channel = m_remoteChannel(m_serviceLogin);
    ChannelRequest request{QStringLiteral("ch_takeover"), QStringLiteral("authorize"),   1999,
                           QStringLiteral("cny"),         QString::fromLatin1(AuthCode), true,
                           QStringLiteral("ch_takeover")};
    request.firstAttempt = false;
    EXPECT_EQ(channel->execute(request).outcome, ChannelOutcome::Unknown);
    EXPECT_EQ(calls(Codepay), 0);
    request.firstAttempt = true;
    EXPECT_EQ(channel->execute(request).outcome, ChannelOutcome::Approved);
    EXPECT_EQ(calls(Codepay), 1);
}

// The service login records and settles reverses, and nothing else: it
// cannot rewrite which order a copy was for, nor delete one.
TEST_F(WechatPayChannelTest, TheServiceCannotRewriteOrDeleteARecordedReverse)
{
    auto session = LibpqConnection::open(m_serviceLogin);
    ASSERT_TRUE(session.ok());
    SentReverses reverses(m_serviceLogin, QStringLiteral("wechatpay"));
    const Result<qint64> copy = reverses.record(QStringLiteral("ch_one"));
    ASSERT_TRUE(copy.ok()) << qPrintable(copy.error().message);
    EXPECT_EQ(reverses.standing(QStringLiteral("ch_one")).value().unsettled, true);
    EXPECT_EQ(reverses.standing(QStringLiteral("ch_other")).value().unsettled, false);
    for (const QByteArray &sql :
         {QByteArray("UPDATE keel.channel_reverses SET order_no = 'ch_other'"),
          QByteArray("DELETE FROM keel.channel_reverses")}) {
        const Status refused = session->exec(sql);
        ASSERT_FALSE(refused.ok()) << sql.constData();
        EXPECT_EQ(refused.error().code, QStringLiteral("42501")) << sql.constData();
    }
    ASSERT_TRUE(reverses.settle(*copy).ok());
    EXPECT_EQ(reverses.standing(QStringLiteral("ch_one")).value().unsettled, false);
    // Settled once, when it was: not unsettled, not dated otherwise.
    const Status unsettled = session->exec("UPDATE keel.channel_reverses SET settled_at = NULL");
    ASSERT_FALSE(unsettled.ok());
    EXPECT_EQ(unsettled.error().code, QStringLiteral("23514"));
    const Status backdated =
        session->exec("UPDATE keel.channel_reverses SET settled_at = '2000-01-01'");
    ASSERT_FALSE(backdated.ok());
    EXPECT_EQ(backdated.error().code, QStringLiteral("23514"));
    const Result<qint64> second = reverses.record(QStringLiteral("ch_one"));
    ASSERT_TRUE(second.ok());
    ASSERT_TRUE(session
                    ->exec("UPDATE keel.channel_reverses SET settled_at = '2000-01-01' "
                           "WHERE copy = " +
                           QByteArray::number(*second))
                    .ok());
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.channel_reverses "
                     "WHERE settled_at > now() - interval '1 hour'"),
              QStringLiteral("2"));
}

// A payer who never confirms: WeChat Pay answers USERPAYING and the order
// waits. keel leaves it in doubt while the payer may still enter a password,
// then reverses it, and the payment fails only once the order reads REVOKED.
TEST_F(WechatPayChannelTest, AnOrderThePayerNeverConfirmsIsReversedOnceThePayerHasHadTime)
{
    start();
    const HttpReply charged = charge("wechatpay-12", "tok_userPayingForever");
    const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
    ASSERT_FALSE(id.isEmpty()) << charged.body.constData();
    ASSERT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    reconcile();
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    EXPECT_EQ(calls("POST /v3/pay/transactions/out-trade-no/"), 0);

    scalar("UPDATE keel.charges SET created_at = now() - interval '2 minutes'");
    reconcile();
    EXPECT_EQ(stateOf(id), QStringLiteral("Failed"));
    EXPECT_EQ(calls("POST /v3/pay/transactions/out-trade-no/"), 1); // the reverse
    EXPECT_EQ(calls(Codepay), 1);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("0"));
}

// The payer confirms just as keel, having waited, reverses the order: the
// reverse meets a paid order, and WeChat Pay gives the money back. The order
// reads REVOKED, the payment fails with nothing booked, and the simulator
// holds the payment and its reverse.
TEST_F(WechatPayChannelTest, APaymentConfirmedAsKeelReversesIsGivenBackAndFails)
{
    start();
    const HttpReply charged = charge("wechatpay-17", "tok_userPayingConfirmsOnReverse");
    const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
    ASSERT_FALSE(id.isEmpty()) << charged.body.constData();
    reconcile();
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.sim_channel_operations"), QStringLiteral("0"))
        << "the payer has not confirmed";

    scalar("UPDATE keel.charges SET created_at = now() - interval '2 minutes'");
    reconcile();
    EXPECT_EQ(stateOf(id), QStringLiteral("Failed"));
    EXPECT_EQ(calls("POST /v3/pay/transactions/out-trade-no/"), 1); // the reverse
    EXPECT_EQ(scalar("SELECT string_agg(operation || ' ' || outcome, ', ' ORDER BY operation) "
                     "FROM keel.sim_channel_operations"),
              QStringLiteral("authorize approved, reverse approved"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("0"));
    EXPECT_EQ(scalar("SELECT count(*) FILTER (WHERE settled_at IS NULL) FROM "
                     "keel.channel_reverses"),
              QStringLiteral("0"));
    // The ledger audit holds keel's clearing account to the channel's record,
    // which nets the payment and its reverse to nothing.
    const keel::test::ProcessResult audit =
        keel::test::runKeel({QStringLiteral("audit"), QStringLiteral("ledger"),
                             QStringLiteral("--db"), settings().conninfo()});
    EXPECT_EQ(audit.exitCode, 0) << qPrintable(audit.err) << qPrintable(audit.out);
}

// A refund WeChat Pay refuses for a reason of its own is final: the refund
// fails at once and the charge keeps its money.
TEST_F(WechatPayChannelTest, ARefundWechatPayRefusesFailsWithItsReason)
{
    SimulatedChannelConfig refusing;
    refusing.refundFailureRate = 1;
    start(refusing);
    const HttpReply charged = charge("wechatpay-5");
    ASSERT_EQ(charged.status, 200) << charged.body.constData();
    const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
    const HttpReply refund =
        post("/v1/refunds", "charge=" + id.toLatin1() + "&amount=300", "wechatpay-5-refund");
    EXPECT_EQ(scalar("SELECT status FROM keel.refunds"), QStringLiteral("failed"))
        << refund.body.constData();
    EXPECT_EQ(stateOf(id), QStringLiteral("Captured"));
    EXPECT_EQ(calls(Refund), 1);
}

// Every answer lost after WeChat Pay acted: the payment and the refund wait
// in doubt, and the reconciler settles each by WeChat Pay's own queries —
// neither is sent twice.
TEST_F(WechatPayChannelTest, InDoubtPaymentsAndRefundsAreSettledByWechatPaysQueries)
{
    SimulatedChannelConfig losing;
    losing.ambiguousRate = 1;
    start(losing);
    const HttpReply charged = charge("wechatpay-3");
    const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
    ASSERT_FALSE(id.isEmpty()) << charged.body.constData();
    ASSERT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    EXPECT_EQ(reconcile().resolved, 1);
    ASSERT_EQ(stateOf(id), QStringLiteral("Captured"));
    EXPECT_FALSE(scalar("SELECT channel_reference FROM keel.charges").isEmpty());

    const HttpReply refund =
        post("/v1/refunds", "charge=" + id.toLatin1() + "&amount=700", "wechatpay-3-refund");
    const QString refundId = jsonOf(refund).value(QLatin1String("id")).toString();
    ASSERT_FALSE(refundId.isEmpty()) << refund.body.constData();
    EXPECT_EQ(scalar("SELECT status FROM keel.refunds"), QStringLiteral("pending"));
    EXPECT_EQ(reconcile().resolved, 1);
    EXPECT_EQ(scalar("SELECT status FROM keel.refunds"), QStringLiteral("succeeded"));
    EXPECT_EQ(simRecord(), QStringLiteral("authorize approved 1999, refund approved 700"));
    EXPECT_EQ(calls(Codepay), 1);
    EXPECT_EQ(calls(Refund), 1);
    EXPECT_GE(calls(OrderQuery), 1);
    EXPECT_GE(calls(RefundQuery), 1);
}

// A payment request WeChat Pay answered "system error" may yet arrive. While
// its payment code could still pay, a reverse of an order WeChat Pay has
// never seen proves nothing and the payment stays in doubt; once the code is
// too old to pay with, the payment fails.
TEST_F(WechatPayChannelTest, AnOrderWechatPayNeverSawFailsOnlyOnceItsPaymentCodeHasExpired)
{
    SimulatedChannelConfig busy;
    busy.errorRate = 1;
    start(busy);
    const HttpReply charged = charge("wechatpay-6");
    const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
    ASSERT_FALSE(id.isEmpty()) << charged.body.constData();
    ASSERT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    reconcile();
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    EXPECT_EQ(calls("POST /v3/pay/transactions/out-trade-no/"), 1);

    scalar("UPDATE keel.charges SET created_at = now() - interval '20 minutes'");
    reconcile();
    EXPECT_EQ(stateOf(id), QStringLiteral("Failed"));
    EXPECT_EQ(calls(Codepay), 1);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("0"));
}

// A request signed with a key WeChat Pay does not hold is rejected as sent
// (401 SIGN_ERROR). The order query is rejected too, so nothing says the
// order holds no payment: it is not reversed, and the payment stays in doubt
// rather than failing on an answer about nothing.
TEST_F(WechatPayChannelTest, ARequestWechatPayCannotVerifyLeavesThePaymentInDoubt)
{
    start({}, "wechatpay.key", "wechatpay.crt");
    const HttpReply charged = charge("wechatpay-7");
    const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
    ASSERT_FALSE(id.isEmpty()) << charged.body.constData();
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    EXPECT_EQ(simRecord(), QString());
    EXPECT_EQ(calls(Codepay), 1);
    EXPECT_EQ(calls(OrderQuery), 1);
    EXPECT_EQ(calls("POST /v3/pay/transactions/out-trade-no/"), 0);
}

// An answer the platform key did not sign is no answer, whatever it says:
// the payment stays in doubt rather than succeeding on a forger's word.
TEST_F(WechatPayChannelTest, AnAnswerNotSignedByWechatPayIsNotBelieved)
{
    start({}, "wechatpay-merchant.key");
    const HttpReply charged = charge("wechatpay-4");
    const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
    ASSERT_FALSE(id.isEmpty()) << charged.body.constData();
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    EXPECT_EQ(simRecord(), QStringLiteral("authorize approved 1999"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("0"));
}

// WeChat Pay rotates its platform key. The first answer signed by the new key
// names a serial keel does not hold: keel reads the certificate list once,
// takes the new certificate (sealed with the APIv3 key, which proves it
// WeChat Pay's) and believes the answer.
TEST_F(WechatPayChannelTest, ARotatedPlatformKeyIsLearnedFromTheCertificateList)
{
    m_platformCertificate = "wechatpay-next.crt";
    m_apiV3Key = fileBytes("wechatpay.apiv3");
    start({}, "wechatpay-next.key");
    const HttpReply charged = charge("wechatpay-9");
    ASSERT_EQ(charged.status, 200) << charged.body.constData();
    EXPECT_EQ(calls("GET /v3/certificates"), 1);
    const HttpReply again = charge("wechatpay-10");
    ASSERT_EQ(again.status, 200) << again.body.constData();
    EXPECT_EQ(calls("GET /v3/certificates"), 1);
}

// A certificate list keel cannot open with its APIv3 key teaches it nothing:
// answers signed by the unknown key stay unbelieved, and the payment in doubt.
TEST_F(WechatPayChannelTest, ACertificateListKeelCannotDecryptIsNotBelieved)
{
    m_platformCertificate = "wechatpay-next.crt";
    m_apiV3Key = "0123456789abcdef0123456789abcdef";
    start({}, "wechatpay-next.key");
    const HttpReply charged = charge("wechatpay-11");
    const QString id = jsonOf(charged).value(QLatin1String("id")).toString();
    ASSERT_FALSE(id.isEmpty()) << charged.body.constData();
    EXPECT_EQ(stateOf(id), QStringLiteral("Authorizing"));
    EXPECT_EQ(calls("GET /v3/certificates"), 1);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_entries"), QStringLiteral("0"));
}

// `keel gateway --channel wechatpay` with its keys as files: a charge through
// the process reaches the simulated WeChat Pay it was pointed at.
TEST_F(WechatPayChannelTest, TheGatewayCallsWechatPayWithTheKeysItIsGiven)
{
    startSimProcess();
    if (HasFatalFailure())
        return;
    QString url;
    auto gateway = spawnGateway(
        {QStringLiteral("--channel"), QStringLiteral("wechatpay"),
         QStringLiteral("--wechatpay-mchid"), MchId, QStringLiteral("--wechatpay-appid"), AppId,
         QStringLiteral("--wechatpay-merchant-key"), signingFile("wechatpay-merchant.key"),
         QStringLiteral("--wechatpay-merchant-certificate"), signingFile("wechatpay-merchant.crt"),
         QStringLiteral("--wechatpay-certificate"), signingFile("wechatpay.crt"),
         QStringLiteral("--wechatpay-api"), QStringLiteral("https://localhost:%1").arg(m_simPort),
         QStringLiteral("--channel-ca-file"), m_pki.caCertificate()},
        &url);
    ASSERT_FALSE(url.isEmpty());
    const HttpReply charged = post("/v1/charges", "amount=2500&currency=cny&source=" + AuthCode,
                                   "wechatpay-cli", {}, clientFor(url, 10000).get());
    ASSERT_EQ(charged.status, 200) << charged.body.constData();
    EXPECT_EQ(simRecord(), QStringLiteral("authorize approved 2500"));
    gateway->terminate();
    gateway->waitForFinished(10000);
}

// A merchant WeChat Pay put on public-key mode holds no platform
// certificate: answers and notifications name their signer PUB_KEY_ID_…,
// and keel verifies them with the public key given under that ID.
TEST_F(WechatPayChannelTest, AMerchantInPublicKeyModeVerifiesAnswersByTheKeysId)
{
    const QString keyId = QStringLiteral("PUB_KEY_ID_0114232134912410000000000000");
    startSimProcess({QStringLiteral("--wechatpay-public-key-id"), keyId});
    if (HasFatalFailure())
        return;
    const auto gatewayWith = [&](const QString &id, QString *url) {
        return spawnGateway({QStringLiteral("--channel"),
                             QStringLiteral("wechatpay"),
                             QStringLiteral("--wechatpay-mchid"),
                             MchId,
                             QStringLiteral("--wechatpay-appid"),
                             AppId,
                             QStringLiteral("--wechatpay-merchant-key"),
                             signingFile("wechatpay-merchant.key"),
                             QStringLiteral("--wechatpay-merchant-certificate"),
                             signingFile("wechatpay-merchant.crt"),
                             QStringLiteral("--wechatpay-public-key"),
                             signingFile("wechatpay.pub"),
                             QStringLiteral("--wechatpay-public-key-id"),
                             id,
                             QStringLiteral("--wechatpay-apiv3-key"),
                             signingFile("wechatpay.apiv3"),
                             QStringLiteral("--wechatpay-api"),
                             QStringLiteral("https://localhost:%1").arg(m_simPort),
                             QStringLiteral("--channel-ca-file"),
                             m_pki.caCertificate()},
                            url);
    };
    QString url;
    auto gateway = gatewayWith(keyId, &url);
    ASSERT_FALSE(url.isEmpty());
    const HttpReply charged = post("/v1/charges", "amount=2500&currency=cny&source=" + AuthCode,
                                   "wechatpay-pubkey", {}, clientFor(url, 10000).get());
    ASSERT_EQ(charged.status, 200) << charged.body.constData();
    EXPECT_EQ(simRecord(), QStringLiteral("authorize approved 2500"));
    // Its notifications name the same ID, and are verified by the key too.
    const QString charge = jsonOf(charged).value(QLatin1String("id")).toString();
    const QByteArray notice = keel::test::wechatPayNoticeBody(
        QStringLiteral("evt-pubkey-1"), charge, 2500, fileBytes("wechatpay.apiv3"));
    const auto notify = [&](const QByteArray &nonce, const QString &signer) {
        return clientFor(url, 10000)
            ->request("POST", "/v1/channels/wechatpay/notify",
                      keel::test::wechatPayNoticeHeaders(
                          notice, nonce, QDateTime::currentSecsSinceEpoch(), signer.toLatin1(),
                          keyFile("wechatpay.key")),
                      notice);
    };
    EXPECT_EQ(notify("nonce-pubkey-1", keyId).status, 204);
    EXPECT_EQ(notify("nonce-pubkey-2", keyId.chopped(1) + u'9').status, 401);
    gateway->terminate();
    gateway->waitForFinished(10000);

    // The same key under another ID verifies nothing WeChat Pay sends.
    QString otherUrl;
    auto other = gatewayWith(QStringLiteral("PUB_KEY_ID_0114232134912410000000000001"), &otherUrl);
    ASSERT_FALSE(otherUrl.isEmpty());
    const HttpReply doubted = post("/v1/charges", "amount=2600&currency=cny&source=" + AuthCode,
                                   "wechatpay-pubkey-2", {}, clientFor(otherUrl, 10000).get());
    EXPECT_EQ(jsonOf(doubted).value(QLatin1String("status")).toString(), QStringLiteral("pending"))
        << doubted.body.constData();
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.payment_state WHERE state = 'Captured'"),
              QStringLiteral("1"));
    other->terminate();
    other->waitForFinished(10000);
}

// Each missing or mismatched piece is named before the gateway serves anything.
TEST_F(WechatPayChannelTest, AGatewayWithAWrongWechatPayKeyDoesNotStart)
{
    const QStringList base{QStringLiteral("gateway"),
                           QStringLiteral("--db"),
                           m_serviceLogin.conninfo(),
                           QStringLiteral("--listen"),
                           QStringLiteral("127.0.0.1:0"),
                           QStringLiteral("--channel"),
                           QStringLiteral("wechatpay"),
                           QStringLiteral("--wechatpay-mchid"),
                           MchId,
                           QStringLiteral("--wechatpay-appid"),
                           AppId};
    const auto run = [&](const QStringList &more, const char *named) {
        const keel::test::ProcessResult result = keel::test::runKeel(base + more);
        EXPECT_EQ(result.exitCode, 2) << named;
        EXPECT_TRUE(result.err.contains(QLatin1String(named))) << qPrintable(result.err);
    };
    const QStringList certificate{QStringLiteral("--wechatpay-certificate"),
                                  signingFile("wechatpay.crt")};
    const QStringList merchant{
        QStringLiteral("--wechatpay-merchant-key"), signingFile("wechatpay-merchant.key"),
        QStringLiteral("--wechatpay-merchant-certificate"), signingFile("wechatpay-merchant.crt")};
    run(certificate + QStringList{QStringLiteral("--wechatpay-merchant-certificate"),
                                  signingFile("wechatpay-merchant.crt")},
        "--wechatpay-merchant-key");
    // A key that is not the certificate's: WeChat Pay would refuse every request.
    run(certificate + QStringList{QStringLiteral("--wechatpay-merchant-key"),
                                  signingFile("wechatpay.key"),
                                  QStringLiteral("--wechatpay-merchant-certificate"),
                                  signingFile("wechatpay-merchant.crt")},
        "wechatpay-merchant-key");
    // A private key where the platform certificate belongs would let keel
    // believe answers it could have signed itself.
    run(merchant +
            QStringList{QStringLiteral("--wechatpay-certificate"), signingFile("wechatpay.key")},
        "wechatpay-certificate");
    // The merchant's own certificate where WeChat Pay's belongs: keel holds
    // the key that signs for it.
    run(merchant + QStringList{QStringLiteral("--wechatpay-certificate"),
                               signingFile("wechatpay-merchant.crt")},
        "merchant's own");
    // Public-key mode: the key needs its ID, the ID its key, and neither may
    // be the merchant's own.
    const QStringList publicKey{QStringLiteral("--wechatpay-public-key"),
                                signingFile("wechatpay.pub")};
    const QString keyId = QStringLiteral("PUB_KEY_ID_0114232134912410000000000000");
    run(merchant + publicKey, "--wechatpay-public-key-id");
    run(merchant + publicKey +
            QStringList{QStringLiteral("--wechatpay-public-key-id"), QStringLiteral("0114")},
        "--wechatpay-public-key-id");
    run(merchant + QStringList{QStringLiteral("--wechatpay-public-key-id"), keyId},
        "--wechatpay-public-key");
    run(merchant + QStringList{QStringLiteral("--wechatpay-public-key"),
                               signingFile("wechatpay-merchant.pub"),
                               QStringLiteral("--wechatpay-public-key-id"), keyId},
        "merchant's own");
    // A payment code's lifetime shorter than a code lives, or than keel waits
    // for an answer, would close orders a request may still pay.
    run(merchant + certificate +
            QStringList{QStringLiteral("--wechatpay-payment-code-lifetime"), QStringLiteral("5")},
        "--wechatpay-payment-code-lifetime");
    run(merchant + certificate +
            QStringList{QStringLiteral("--wechatpay-payment-code-lifetime"), QStringLiteral("90"),
                        QStringLiteral("--channel-timeout"), QStringLiteral("120000")},
        "--channel-timeout");
    // Plain http:// to WeChat Pay is refused like every other outgoing call.
    run(merchant + certificate +
            QStringList{QStringLiteral("--wechatpay-api"), QStringLiteral("http://127.0.0.1:9")},
        "--wechatpay-api");
}
