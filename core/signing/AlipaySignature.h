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

} // namespace AlipaySignature
} // namespace keel
