#include "core/signing/AlipaySignature.h"

#include "core/signing/RsaKey.h"

#include <QMap>
#include <QSet>

#include <optional>

namespace keel::AlipaySignature {
namespace {

// Whom a signature covers: a notification Alipay sends signs neither `sign`
// nor `sign_type`; a request to the OpenAPI signs `sign_type` too.
enum class Scheme { Notification, Request };

// The signed parameters sorted by key; nothing if a key repeats.
std::optional<QMap<QString, QString>> signedParameters(const Parameters &parameters,
                                                       Scheme scheme = Scheme::Notification)
{
    // Any repeated key is refused, also an empty or unsigned one: "a=&a=1"
    // or two `sign` values read differently in different parsers.
    QMap<QString, QString> kept;
    QSet<QString> seen;
    for (const auto &[key, value] : parameters) {
        if (seen.contains(key))
            return std::nullopt;
        seen.insert(key);
        if (key == QLatin1String("sign") || value.isEmpty() ||
            (scheme == Scheme::Notification && key == QLatin1String("sign_type")))
            continue;
        kept.insert(key, value);
    }
    return kept;
}

QByteArray join(const QMap<QString, QString> &kept)
{
    QByteArray message;
    for (auto it = kept.cbegin(); it != kept.cend(); ++it) {
        if (!message.isEmpty())
            message += '&';
        message += it.key().toUtf8() + '=' + it.value().toUtf8();
    }
    return message;
}

QString valueOf(const Parameters &parameters, const char *key)
{
    for (const auto &[name, value] : parameters)
        if (name == QLatin1String(key))
            return value;
    return {};
}

} // namespace

QByteArray signString(const Parameters &parameters)
{
    return join(signedParameters(parameters).value_or(QMap<QString, QString>()));
}

SignatureVerdict verify(const Parameters &parameters, const RsaKey &alipayPublicKey)
{
    const std::optional<QMap<QString, QString>> kept = signedParameters(parameters);
    const QString signType = valueOf(parameters, "sign_type");
    const auto decoded = QByteArray::fromBase64Encoding(valueOf(parameters, "sign").toLatin1(),
                                                        QByteArray::AbortOnBase64DecodingErrors);
    const QByteArray signature = decoded ? *decoded : QByteArray();
    if (!kept || kept->isEmpty() || signature.isEmpty() ||
        (!signType.isEmpty() && signType != QLatin1String("RSA2")))
        return SignatureVerdict::Malformed;
    return alipayPublicKey.verifySha256(join(*kept), signature) ? SignatureVerdict::Valid
                                                                : SignatureVerdict::Mismatch;
}

QByteArray requestSignString(const Parameters &parameters)
{
    return join(signedParameters(parameters, Scheme::Request).value_or(QMap<QString, QString>()));
}

Result<QString> signRequest(const Parameters &parameters, const RsaKey &appPrivateKey)
{
    if (!signedParameters(parameters, Scheme::Request))
        return makeError(ErrorKind::Usage, QStringLiteral("a request repeats a parameter"));
    Result<QByteArray> signature = appPrivateKey.signSha256(requestSignString(parameters));
    if (!signature)
        return signature.error();
    return QString::fromLatin1(signature->toBase64());
}

SignatureVerdict verifyResponse(const QByteArray &node, const QByteArray &sign,
                                const RsaKey &alipayPublicKey)
{
    const auto decoded =
        QByteArray::fromBase64Encoding(sign, QByteArray::AbortOnBase64DecodingErrors);
    if (node.isEmpty() || !decoded || (*decoded).isEmpty())
        return SignatureVerdict::Malformed;
    return alipayPublicKey.verifySha256(node, *decoded) ? SignatureVerdict::Valid
                                                        : SignatureVerdict::Mismatch;
}

Result<QString> sign(const Parameters &parameters, const RsaKey &privateKey)
{
    Result<QByteArray> signature = privateKey.signSha256(signString(parameters));
    if (!signature)
        return signature.error();
    return QString::fromLatin1(signature->toBase64());
}

} // namespace keel::AlipaySignature
