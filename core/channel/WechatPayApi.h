#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace keel {

class RsaKey;

// WeChat Pay API v3 on the wire (https://api.mch.weixin.qq.com): JSON in, a
// request signed by the merchant's API key in its Authorization header, and
// what each answer means for money. The adapter's transport and its state are
// elsewhere; this is only the protocol, so it can be checked against vectors
// made without keel.
namespace WechatPayApi {

// What keel asks of WeChat Pay, one request each.
enum class Operation {
    Pay,         // POST /v3/pay/transactions/codepay (付款码支付)
    TradeQuery,  // GET /v3/pay/transactions/out-trade-no/{out_trade_no}?mchid=
    Reverse,     // POST /v3/pay/transactions/out-trade-no/{out_trade_no}/reverse (撤销)
    Refund,      // POST /v3/refund/domestic/refunds
    RefundQuery, // GET /v3/refund/domestic/refunds/{out_refund_no}
};

QString operationName(Operation operation);

// The Authorization header's fields.
struct Authorization {
    QString mchid;
    QByteArray nonce;
    QByteArray timestamp; // unix seconds
    QByteArray serial;    // the merchant API certificate's serial number
    QByteArray signature; // base64
};

// "<METHOD>\n<path and query>\n<timestamp>\n<nonce>\n<body>\n": what the
// merchant's API key signs. A GET signs an empty body.
QByteArray requestMessage(const QByteArray &method, const QByteArray &pathAndQuery,
                          const QByteArray &timestamp, const QByteArray &nonce,
                          const QByteArray &body);
// `WECHATPAY2-SHA256-RSA2048 mchid="…",nonce_str="…",signature="…",timestamp="…",serial_no="…"`.
Result<QByteArray> authorize(const QByteArray &method, const QByteArray &pathAndQuery,
                             const QByteArray &body, const QString &mchid, const QByteArray &serial,
                             const RsaKey &merchantKey, qint64 now, const QByteArray &nonce);
// The fields of such a header; nullopt if it is not one.
std::optional<Authorization> readAuthorization(const QByteArray &header);

// What an answer means for the money it was about.
enum class Meaning {
    Done,     // the request did what was asked (or WeChat Pay had already done it)
    Refused,  // certainly not done: a business refusal or a request rejected as sent
    NotFound, // a query: WeChat Pay has no such order or refund now (one in flight may yet arrive)
    InDoubt,  // anything else: settled by a query
};
struct Reading {
    Meaning meaning = Meaning::InDoubt;
    QString code; // the error's `code`, or the trade's or refund's status
    QString why;  // one line for the log and the payment's timeline
};
// By the HTTP status, the error's `code` and, for a success, the order's
// trade_state or the refund's status. Anything keel does not know is InDoubt:
// keel never guesses that money did not move.
Reading classify(Operation operation, int status, const QJsonObject &fields);

} // namespace WechatPayApi
} // namespace keel
