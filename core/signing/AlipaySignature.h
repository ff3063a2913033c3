#pragma once

#include "core/Result.h"
#include "core/signing/SignatureVerdict.h"

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>

namespace keel {

class RsaKey;

// Alipay's RSA2 signature over a notification's (URL-decoded) parameters:
// drop `sign` and `sign_type` and every empty value, sort by key, join the raw
// `k=v` with '&', SHA256withRSA, base64 in `sign`.
namespace AlipaySignature {

using Parameters = QList<QPair<QString, QString>>;

QByteArray signString(const Parameters &parameters);
// Valid when `sign_type` is RSA2 (or absent) and `sign` verifies with
// Alipay's public key. A repeated key is Malformed: it cannot be signed.
SignatureVerdict verify(const Parameters &parameters, const RsaKey &alipayPublicKey);
// The `sign` value for `parameters` (the channel simulator signs this way).
Result<QString> sign(const Parameters &parameters, const RsaKey &privateKey);

// A call to Alipay's OpenAPI is signed by the same rule but for `sign_type`,
// which it covers: every parameter but `sign` and the empty ones, sorted by
// key, raw `k=v` joined with '&', SHA256withRSA by the app's private key.
QByteArray requestSignString(const Parameters &parameters);
Result<QString> signRequest(const Parameters &parameters, const RsaKey &appPrivateKey);
// Alipay signs its answer's response node, the bytes exactly as sent, and
// puts the base64 signature beside it in `sign`.
SignatureVerdict verifyResponse(const QByteArray &node, const QByteArray &sign,
                                const RsaKey &alipayPublicKey);

} // namespace AlipaySignature
} // namespace keel
