#pragma once

#include "core/Result.h"
#include "core/channel/WechatPayApi.h"
#include "core/payment/Channel.h"
#include "core/payment/SentReverses.h"
#include "core/signing/RsaKey.h"
#include "core/signing/SignatureVerdict.h"
#include "core/signing/WechatPayCertificates.h"

#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QMutex>
#include <QUrl>

#include <optional>

namespace keel {

struct WechatPayChannelOptions {
    QUrl api = QUrl(QStringLiteral("https://api.mch.weixin.qq.com"));
    QString mchid;             // 直连商户号
    QString appid;             // the AppID the merchant number is bound to
    RsaKey merchantKey;        // the merchant's API private key: signs every request
    QByteArray merchantSerial; // its certificate's serial number, sent as serial_no
    // The platform certificates (several during a rotation): each answer is
    // believed only if the one its Wechatpay-Serial names signed it.
    QList<RsaKey> platformCertificates;
    // The merchant's APIv3 key: with it, an answer signed by a certificate
    // keel does not hold has the list downloaded (GET /v3/certificates) and
    // read again. Empty: only the certificates above are believed.
    QByteArray apiV3Key;
    // Set: the certificates to use and keep, shared with whoever else
    // verifies WeChat Pay (the notification endpoint), instead of the two above.
    std::shared_ptr<WechatPayCertificates> certificates;
    int timeoutMs = 10000;
    QString authority; // a PEM file trusted for WeChat Pay's API alone; empty: the process's
    // How long after a charge was created a payment request for it could
    // still reach WeChat Pay and be paid: a payment code (auth_code) is
    // refused about a minute after it is shown. Past this, an order WeChat
    // Pay has never seen is taken as closed for good.
    int paymentCodeLifetimeSeconds = 600;
};

// WeChat Pay API v3 as a keel channel: payment-code sales (付款码支付,
// auth_code = the charge's source), refunds with out_refund_no = keel's
// refund id, their queries by keel's numbers, and 关单 by reversing an
// unpaid order. Every answer's signature is checked before it is believed;
// an answer that does not verify is no answer. Only CNY sales: an
// authorization without capture or another currency is declined before
// anything is sent.
struct HttpReply;

class WechatPayChannel final : public Channel {
public:
    // `settings`: the process's database, where the reverses it sends are
    // recorded for every process to see (SentReverses).
    WechatPayChannel(WechatPayChannelOptions options, const ConnectionSettings &settings);

    QString name() const override { return QStringLiteral("wechatpay"); }
    QString statementChannel() const override { return QStringLiteral("wechatpay"); }
    ChannelResult execute(const ChannelRequest &request) override;
    // An authorization WeChat Pay holds unpaid is reversed once its payer
    // has failed or had time to pay, and the answer is what became of it.
    ChannelResult query(const ChannelRequest &operation) override;
    // An authorization is looked up, then reversed if WeChat Pay says it is
    // unpaid; then looked up again. A refund cannot be stopped: its close
    // says what the refund query says, or Unknown.
    ChannelResult close(const ChannelRequest &operation) override;

private:
    ChannelResult pay(const ChannelRequest &request);
    ChannelResult refund(const ChannelRequest &request);
    // `unpaid` (if given) is set to the order's state (NOTPAY, USERPAYING,
    // PAYERROR) or ORDER_NOT_EXIST when WeChat Pay said for certain that it
    // holds no payment for it: only then may it be reversed.
    ChannelResult queryTrade(const ChannelRequest &operation, QString *unpaid = nullptr);
    ChannelResult queryRefund(const ChannelRequest &operation);
    // An authorization's order, reversed if it is left unpaid; before
    // unlessReversing.
    ChannelResult queryOrder(const ChannelRequest &operation);
    // `justRefused`: WeChat Pay has just refused the only payment request
    // ever sent for this order (ChannelRequest::firstAttempt).
    // Asks the order, and reverses it only if it holds no payment.
    ChannelResult closeOrder(const ChannelRequest &operation, bool justRefused);
    // What the order's reading (and `unpaid`, as queryTrade sets it)
    // decides before any new reverse. None: the caller decides.
    std::optional<ChannelResult> afterReading(const ChannelRequest &operation,
                                              const ChannelResult &known, const QString &unpaid);
    // Records a copy, reads the order again, and sends the reverse only if
    // the order still holds no payment. Closed only once WeChat Pay has
    // answered the reverse and the order reads CLOSED or REVOKED.
    ChannelResult reverse(const ChannelRequest &operation, bool justRefused);
    // `seenAbsent`: the order was read as one WeChat Pay does not have.
    std::optional<ChannelResult> stillUnpaid(const ChannelRequest &operation, qint64 copy,
                                             bool *seenAbsent);
    // Sends the reverse as copy `recorded` (or one recorded now), and reads
    // what became of the order.
    ChannelResult sendReverse(const ChannelRequest &operation, bool justRefused, bool seenAbsent,
                              std::optional<qint64> recorded = std::nullopt);
    int staleAfterSeconds() const;
    // `result` (of `operation`), unless it says "paid" while a reverse of the
    // order may still be carried out: then Unknown.
    ChannelResult unlessReversing(const ChannelRequest &operation, const ChannelResult &result);
    bool alone(const QString &order);
    ChannelResult neverSeen(const ChannelRequest &operation, bool justRefused,
                            const QString &why) const;

    // One signed request and its answer, believed only if the platform's
    // key signed it and it names the order (or refund) asked about.
    struct Exchange;
    // One request signed as the merchant; `refusal` says why none could be sent.
    HttpReply send(const QByteArray &method, const QByteArray &pathAndQuery, const QByteArray &body,
                   QString *refusal);
    SignatureVerdict verify(const HttpReply &reply);
    bool firstUse(const QByteArray &nonce, qint64 now);
    void refreshCertificates();
    Exchange call(WechatPayApi::Operation operation, const QByteArray &pathAndQuery,
                  const QJsonObject &body, const QJsonObject &names);
    static ChannelResult unanswered(const Exchange &exchange);
    static ChannelResult paidOrder(const Exchange &exchange, qint64 amount);

    WechatPayChannelOptions m_options;
    std::shared_ptr<WechatPayCertificates> m_certificates;
    SentReverses m_reverses;
    // The nonces of answers believed in the last ten minutes.
    QMutex m_noncesMutex;
    QHash<QByteArray, qint64> m_seenNonces;
    qint64 m_noncesSwept = 0;
};

// `keel gateway --channel wechatpay`: the options as read from files, checked.
Result<ChannelFactory> wechatpayChannel(WechatPayChannelOptions options);

} // namespace keel
