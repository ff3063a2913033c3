#pragma once

#include "core/Result.h"
#include "core/signing/AlipaySignature.h"
#include "core/signing/SignatureVerdict.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonObject>
#include <QString>

namespace keel {

class RsaKey;

// Alipay's OpenAPI on the wire (https://openapi.alipay.com/gateway.do): a
// signed form in, a JSON answer whose response node Alipay signs out, and
// what each answer means for money. The adapter's transport and its state
// are elsewhere; this is only the protocol, so it can be checked against
// vectors made without keel.
namespace AlipayOpenApi {

struct Call {
    QString appId;
    QString method;         // alipay.trade.pay, alipay.trade.query, alipay.trade.refund, ...
    QJsonObject bizContent; // the method's own parameters
    QString notifyUrl;      // empty: none
    QDateTime at;           // sent as Beijing time, yyyy-MM-dd HH:mm:ss
};

// The call's parameters with its RSA2 `sign`, in the order they are sent.
Result<AlipaySignature::Parameters> signedCall(const Call &call, const RsaKey &appPrivateKey);
// application/x-www-form-urlencoded, UTF-8.
QByteArray formBody(const AlipaySignature::Parameters &parameters);

// An answer as Alipay sent it: the response node's exact bytes (what its
// signature covers), its fields, and the signature.
struct Answer {
    QByteArray node;
    QJsonObject fields;
    QByteArray sign;
    bool errorNode = false; // `error_response`: the call was refused before the method ran
};
// Finds `<method with '.' as '_'>_response` (or `error_response`) in `body`;
// an error if the body is not such an answer.
Result<Answer> readAnswer(const QByteArray &body, const QString &method);
SignatureVerdict verify(const Answer &answer, const RsaKey &alipayPublicKey);

// What an answer means for the money it was about.
enum class Meaning {
    Done,     // the method did what was asked (or had already done it)
    Refused,  // certainly not done: a business refusal or a request rejected as sent
    NotFound, // a query: Alipay has no such trade or refund now (one in flight may yet arrive)
    InDoubt,  // anything else: settled by a query or Alipay's notification
};
struct Reading {
    Meaning meaning = Meaning::InDoubt;
    QString code;
    QString subCode;
    QString why; // one line for the log and the payment's timeline
};
// By `code` and `sub_code` (and, for a query, the trade's status; for a
// refund, whether money moved). An unknown code or sub_code is InDoubt:
// keel never guesses that money did not move.
Reading classify(const QString &method, const QJsonObject &fields);

} // namespace AlipayOpenApi
} // namespace keel
