#include "core/signing/WechatPaySignature.h"

#include "core/signing/RsaKey.h"

#include <cstdlib>

namespace keel::WechatPaySignature {

QByteArray message(const QByteArray &timestamp, const QByteArray &nonce, const QByteArray &body)
{
    return timestamp + '\n' + nonce + '\n' + body + '\n';
}

SignatureVerdict verify(const WechatPayHeaders &headers, const QByteArray &body,
                        const QList<RsaKey> &certificates, qint64 now, int windowSeconds)
{
    bool numeric = false;
    const qint64 signedAt = headers.timestamp.toLongLong(&numeric);
    const auto signature =
        QByteArray::fromBase64Encoding(headers.signature, QByteArray::AbortOnBase64DecodingErrors);
    if (!numeric || signedAt < 0 || headers.nonce.isEmpty() || headers.serial.isEmpty() ||
        !signature || signature.decoded.isEmpty())
        return SignatureVerdict::Malformed;
    if (std::llabs(now - signedAt) > windowSeconds)
        return SignatureVerdict::OutsideWindow;
    const QString serial = QString::fromLatin1(headers.serial).toUpper();
    for (const RsaKey &certificate : certificates) {
        if (certificate.certificateSerial() != serial)
            continue;
        return certificate.verifySha256(message(headers.timestamp, headers.nonce, body), *signature)
                   ? SignatureVerdict::Valid
                   : SignatureVerdict::Mismatch;
    }
    return SignatureVerdict::UnknownKey;
}

Result<WechatPayHeaders> sign(const QByteArray &body, const RsaKey &privateKey,
                              const QByteArray &serial, qint64 now, const QByteArray &nonce)
{
    WechatPayHeaders headers{QByteArray::number(now), nonce, serial, {}};
    Result<QByteArray> signature = privateKey.signSha256(message(headers.timestamp, nonce, body));
    if (!signature)
        return signature.error();
    headers.signature = signature->toBase64();
    return headers;
}

} // namespace keel::WechatPaySignature
