#pragma once

#include "core/Result.h"
#include "core/signing/SignatureVerdict.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace keel {

class RsaKey;

// The four headers WeChat Pay API v3 signs a notification with.
struct WechatPayHeaders {
    QByteArray timestamp; // Wechatpay-Timestamp, unix seconds
    QByteArray nonce;     // Wechatpay-Nonce
    QByteArray serial;    // Wechatpay-Serial: the platform certificate that signed
    QByteArray signature; // Wechatpay-Signature, base64
};

// WeChat Pay API v3: SHA256withRSA over "<timestamp>\n<nonce>\n<body>\n" by the
// platform certificate named in Wechatpay-Serial.
namespace WechatPaySignature {

QByteArray message(const QByteArray &timestamp, const QByteArray &nonce, const QByteArray &body);
// Valid when the serial names one of `certificates`, the timestamp is within
// `windowSeconds` of `now` and the signature verifies. The nonce is checked
// for reuse by the caller, which remembers them.
SignatureVerdict verify(const WechatPayHeaders &headers, const QByteArray &body,
                        const QList<RsaKey> &certificates, qint64 now, int windowSeconds = 300);
// Headers for `body` signed now by `privateKey` as certificate `serial`.
Result<WechatPayHeaders> sign(const QByteArray &body, const RsaKey &privateKey,
                              const QByteArray &serial, qint64 now, const QByteArray &nonce);

} // namespace WechatPaySignature
} // namespace keel
