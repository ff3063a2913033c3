#pragma once

#include "core/db/ConnectionSettings.h"
#include "core/signing/RsaKey.h"

#include <QJsonObject>
#include <QString>

#include <functional>
#include <optional>

namespace keel {

class RequestParams;
class SimulatedChannel;
struct ChannelRequest;
struct ChannelResult;
struct HttpRequest;
struct HttpResponse;

struct AlipayGatewayOptions {
    QString appId;       // the only app whose calls are taken
    RsaKey appPublicKey; // verifies each call's `sign`
    RsaKey alipayKey;    // signs each answer's response node
};

// The simulated network speaking Alipay's OpenAPI at POST /gateway.do:
// alipay.trade.pay, .query, .cancel, .refund and .fastpay.refund.query,
// answered as Alipay answers (a `<method>_response` node and its RSA2 `sign`),
// with the simulated channel's record behind them, so keel's Alipay adapter
// is tested over the network. A call whose signature does not verify gets
// 40002 isv.invalid-signature; the channel's faults show as Alipay shows
// them: unavailable is 20000, a lost answer a connection closed.
class AlipayGatewaySim final {
public:
    // Told of each payment's outcome, for the asynchronous notification
    // Alipay also sends.
    using Announce = std::function<void(const ChannelRequest &, const ChannelResult &)>;

    AlipayGatewaySim(AlipayGatewayOptions options, SimulatedChannel &channel,
                     ConnectionSettings settings, Announce announce = {});

    HttpResponse handle(const HttpRequest &request);

private:
    // The refusal of a call from another app or with a bad signature; none: it is taken.
    std::optional<QJsonObject> rejection(const RequestParams &form) const;
    // The fields of the answer's node; nullopt: the answer is lost.
    std::optional<QJsonObject> answer(const QString &method, const QJsonObject &biz);
    std::optional<QJsonObject> pay(const QJsonObject &biz);
    QJsonObject tradeQuery(const QJsonObject &biz);
    QJsonObject cancel(const QJsonObject &biz);
    std::optional<QJsonObject> refund(const QJsonObject &biz);
    QJsonObject refundQuery(const QJsonObject &biz);
    HttpResponse signedAnswer(const QString &method, const QJsonObject &fields) const;

    AlipayGatewayOptions m_options;
    SimulatedChannel &m_channel;
    ConnectionSettings m_settings;
    Announce m_announce;
};

} // namespace keel
