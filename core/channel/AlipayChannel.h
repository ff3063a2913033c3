#pragma once

#include "core/Result.h"
#include "core/payment/Channel.h"
#include "core/signing/RsaKey.h"

#include <QJsonObject>
#include <QUrl>

namespace keel {

struct AlipayChannelOptions {
    QUrl gateway = QUrl(QStringLiteral("https://openapi.alipay.com/gateway.do"));
    QString appId;
    RsaKey appPrivateKey;   // signs every request
    RsaKey alipayPublicKey; // verifies every answer
    QString notifyUrl;      // where Alipay sends trade results; empty: none
    int timeoutMs = 10000;
    QString authority; // a PEM file trusted for Alipay's gateway alone; empty: the process's
    // How long after a charge was created a pay request for it could still
    // reach Alipay and be paid: a payment code (auth_code) is shown for about
    // a minute and refused soon after. Past this, a trade Alipay has never
    // seen, once cancelled, is taken as closed for good.
    int paymentCodeLifetimeSeconds = 600;
};

// Alipay's OpenAPI as a keel channel: barcode payments (alipay.trade.pay,
// auth_code = the charge's source), refunds with out_request_no = keel's
// refund id, their queries, and 关单 by alipay.trade.cancel. Every answer's
// signature is checked before it is believed; an answer that does not verify
// is no answer. Only CNY sales: an authorization without capture or another
// currency is declined before anything is sent.
class AlipayChannel final : public Channel {
public:
    explicit AlipayChannel(AlipayChannelOptions options);

    QString name() const override { return QStringLiteral("alipay"); }
    QString statementChannel() const override { return QStringLiteral("alipay"); }
    ChannelResult execute(const ChannelRequest &request) override;
    ChannelResult query(const ChannelRequest &operation) override;
    // An authorization is looked up, then cancelled if Alipay says it is
    // unpaid; cancel also stops a pay request still on its way to a trade
    // Alipay knows. A refund cannot be stopped at Alipay: its close says what
    // the refund query says, or Unknown.
    ChannelResult close(const ChannelRequest &operation) override;

private:
    ChannelResult pay(const ChannelRequest &request);
    ChannelResult refund(const ChannelRequest &request);
    // `unpaid` (if given) is set when Alipay said for certain that the trade
    // is unknown to it or waits for the buyer: only then may it be cancelled.
    ChannelResult queryTrade(const ChannelRequest &operation, bool *unpaid = nullptr);
    ChannelResult queryRefund(const ChannelRequest &operation);
    // `justRefused`: Alipay has just refused the only pay request ever sent
    // for this trade (ChannelRequest::firstAttempt), so no copy can follow.
    ChannelResult cancel(const ChannelRequest &operation, bool justRefused);
    ChannelResult refusedRefund(const ChannelRequest &request, const QString &subCode,
                                const QString &why);

    // One signed call and its answer, believed only if Alipay's key signed it
    // and it names the trade (and refund) asked about.
    struct Exchange;
    Exchange call(const QString &method, const QJsonObject &bizContent);
    static ChannelResult unanswered(const Exchange &exchange);
    static ChannelResult paidTrade(const Exchange &exchange, qint64 amount);

    AlipayChannelOptions m_options;
};

// `keel gateway --channel alipay`: the options as read from files, checked.
Result<ChannelFactory> alipayChannel(AlipayChannelOptions options);

} // namespace keel
