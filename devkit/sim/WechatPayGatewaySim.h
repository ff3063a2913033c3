#pragma once

#include "core/db/ConnectionSettings.h"
#include "core/signing/RsaKey.h"

#include <QHash>
#include <QJsonObject>
#include <QMutex>
#include <QSet>
#include <QString>

#include <optional>

namespace keel {

class SimulatedChannel;
struct HttpRequest;
struct HttpResponse;

struct WechatPayGatewayOptions {
    QString mchid;              // the only merchant whose requests are taken
    RsaKey merchantCertificate; // verifies each request's Authorization (and names its serial)
    RsaKey platformKey;         // signs each answer
    // The platform certificate's serial, sent as Wechatpay-Serial; or, as
    // WeChat Pay signs for a merchant on public-key mode, the key's PUB_KEY_ID_….
    QByteArray platformSerial;
    // GET /v3/certificates lists the platform certificate (PEM), sealed with
    // the merchant's APIv3 key; without a key it is not served.
    QByteArray platformCertificatePem = {};
    QByteArray apiV3Key = {};
};

// The simulated network speaking WeChat Pay API v3 under /v3/: payment-code
// sales (codepay), the order query by out_trade_no, reverse, refunds and the
// refund query, answered as WeChat Pay answers (JSON, HTTP status and error
// `code`, signed in the Wechatpay-* headers), with the simulated channel's
// record behind them, so keel's adapter is tested over the network. A request
// whose Authorization does not verify gets 401 SIGN_ERROR; the channel's
// faults show as WeChat Pay shows them: unavailable is 500 SYSTEM_ERROR, a
// lost answer a connection closed.
class WechatPayGatewaySim final {
public:
    WechatPayGatewaySim(WechatPayGatewayOptions options, SimulatedChannel &channel,
                        ConnectionSettings settings);

    HttpResponse handle(const HttpRequest &request);

private:
    struct Answer {
        int status = 200;
        QJsonObject fields;
    };
    static Answer busy();
    // Whether an answer is lost this time (the channel's ambiguousRate).
    bool answerLost() const;
    // The refusal of a request from another merchant or with a bad signature;
    // none: it is taken.
    std::optional<Answer> rejection(const HttpRequest &request) const;
    // nullopt: the answer is lost.
    std::optional<Answer> answer(const HttpRequest &request, const QJsonObject &body);
    std::optional<Answer> pay(const QJsonObject &body);
    Answer tradeQuery(const QString &outTradeNo);
    Answer reverse(const QString &outTradeNo, const QJsonObject &body);
    Answer reversePaid(const QString &outTradeNo, const QJsonObject &reversed);
    // Whether a paid order was given back; empty when the record cannot be read.
    std::optional<bool> reversedPayment(const QString &outTradeNo);
    // Whether the channel holds a record of the operation, whatever its
    // outcome; empty when it cannot be read.
    std::optional<bool> recorded(const QString &reference, const QString &operation);
    std::optional<Answer> refund(const QJsonObject &body);
    Answer refundQuery(const QString &outRefundNo);
    Answer certificates() const;
    QJsonObject order(const QString &outTradeNo, const QString &state, const QString &transaction,
                      qint64 total) const;
    HttpResponse signedAnswer(const Answer &answer) const;

    WechatPayGatewayOptions m_options;
    SimulatedChannel &m_channel;
    ConnectionSettings m_settings;
    // Orders reversed unpaid, which WeChat Pay then reports as REVOKED (kept
    // in memory: after a restart a reverse is asked for again, and repeated).
    QMutex m_reversedMutex;
    QSet<QString> m_reversed;
    // Orders paid with a tok_userPaying* code, WeChat Pay reporting
    // USERPAYING until the payer confirms or the order is reversed (same
    // mutex). A tok_userPayingConfirms payer confirms 30 to 90 s after paying,
    // around the time keel stops waiting; a tok_userPayingConfirmsOnReverse
    // payer just as the merchant reverses the order, which then undoes a
    // payment; any other never confirms.
    struct WaitingPayer {
        qint64 total = 0;
        QString authCode;
        qint64 confirmsAtMs = 0; // 0: never; -1: on the reverse
    };
    QHash<QString, WaitingPayer> m_userPaying;
    void payerConfirms(const QString &outTradeNo, bool reversing = false);
};

} // namespace keel
