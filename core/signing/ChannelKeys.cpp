#include "core/signing/ChannelKeys.h"

#include <QFile>
#include <QRegularExpression>

namespace keel {
namespace {

Result<QByteArray> readKeyFile(const QString &path, const QString &option)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fieldError(
            option, QStringLiteral("file_unreadable"),
            QStringLiteral("--%1: cannot read %2: %3").arg(option, path, file.errorString()));
    return file.readAll().trimmed();
}

} // namespace

Result<RsaKey> readRsaKeyFile(const QString &path, const QString &option)
{
    Result<QByteArray> text = readKeyFile(path, option);
    if (!text)
        return text.error();
    const QString what = QStringLiteral("--%1 (%2)").arg(option, path);
    return text->startsWith("-----") ? RsaKey::fromPem(*text, what)
                                     : RsaKey::fromBase64PublicKey(*text, what);
}

namespace {

// The platform public key of a merchant WeChat Pay put on public-key mode,
// named by its ID; none if neither option is given.
Result<std::optional<RsaKey>> wechatpayPublicKey(const ChannelKeyFiles &files)
{
    if (files.wechatpayPublicKey.isEmpty() && files.wechatpayPublicKeyId.isEmpty())
        return std::optional<RsaKey>();
    static const QRegularExpression Id(
        QRegularExpression::anchoredPattern(QStringLiteral("PUB_KEY_ID_[0-9A-Z]{1,64}")));
    if (!Id.match(files.wechatpayPublicKeyId).hasMatch())
        return fieldError(QStringLiteral("wechatpay-public-key-id"),
                          QStringLiteral("parameter_invalid"),
                          QStringLiteral("--wechatpay-public-key needs --wechatpay-public-key-id, "
                                         "the PUB_KEY_ID_… WeChat Pay shows beside the key"));
    if (files.wechatpayPublicKey.isEmpty())
        return fieldError(QStringLiteral("wechatpay-public-key"),
                          QStringLiteral("parameter_missing"),
                          QStringLiteral("--wechatpay-public-key-id needs --wechatpay-public-key"));
    Result<RsaKey> key =
        readRsaKeyFile(files.wechatpayPublicKey, QStringLiteral("wechatpay-public-key"));
    if (!key)
        return key.error();
    if (key->canSign() || !key->certificateSerial().isEmpty())
        return fieldError(QStringLiteral("wechatpay-public-key"), QStringLiteral("key_invalid"),
                          QStringLiteral("--wechatpay-public-key %1 must be WeChat Pay's public "
                                         "key (pub_key.pem)")
                              .arg(files.wechatpayPublicKey));
    return std::optional<RsaKey>(key->named(files.wechatpayPublicKeyId));
}

} // namespace

Result<ChannelKeys> ChannelKeys::load(const ChannelKeyFiles &files)
{
    ChannelKeys keys;
    if (!files.alipayPublicKey.isEmpty()) {
        Result<RsaKey> key =
            readRsaKeyFile(files.alipayPublicKey, QStringLiteral("alipay-public-key"));
        if (!key)
            return key.error();
        keys.alipayPublicKey = *key;
    }
    QList<RsaKey> wechatpayCertificates;
    for (const QString &path : files.wechatpayCertificates) {
        Result<RsaKey> certificate = readRsaKeyFile(path, QStringLiteral("wechatpay-certificate"));
        if (!certificate)
            return certificate.error();
        if (certificate->certificateSerial().isEmpty())
            return fieldError(QStringLiteral("wechatpay-certificate"),
                              QStringLiteral("key_invalid"),
                              QStringLiteral("--wechatpay-certificate %1 is a key, not a "
                                             "certificate: WeChat Pay names its signer by the "
                                             "certificate's serial")
                                  .arg(path));
        wechatpayCertificates << *certificate;
    }
    Result<std::optional<RsaKey>> publicKey = wechatpayPublicKey(files);
    if (!publicKey)
        return publicKey.error();
    if (*publicKey)
        wechatpayCertificates << **publicKey;
    if (!files.wechatpayApiV3Key.isEmpty()) {
        Result<QByteArray> key =
            readKeyFile(files.wechatpayApiV3Key, QStringLiteral("wechatpay-apiv3-key"));
        if (!key)
            return key.error();
        if (key->size() != 32)
            return fieldError(QStringLiteral("wechatpay-apiv3-key"), QStringLiteral("key_invalid"),
                              QStringLiteral("--wechatpay-apiv3-key must hold the 32-character "
                                             "APIv3 key"));
        keys.wechatpayApiV3Key = *key;
    }
    if (!wechatpayCertificates.isEmpty())
        keys.wechatpayCertificates = std::make_shared<WechatPayCertificates>(
            std::move(wechatpayCertificates), keys.wechatpayApiV3Key);
    for (const QString &path : files.stripeWebhookSecrets) {
        Result<QByteArray> secret = readKeyFile(path, QStringLiteral("stripe-webhook-secret"));
        if (!secret)
            return secret.error();
        if (!secret->startsWith("whsec_"))
            return fieldError(QStringLiteral("stripe-webhook-secret"),
                              QStringLiteral("key_invalid"),
                              QStringLiteral("--stripe-webhook-secret %1 does not hold a whsec_ "
                                             "value")
                                  .arg(path));
        keys.stripeWebhookSecrets << *secret;
    }
    return keys;
}

} // namespace keel
