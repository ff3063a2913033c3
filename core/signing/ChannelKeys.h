#pragma once

#include "core/Result.h"
#include "core/signing/RsaKey.h"
#include "core/signing/WechatPayCertificates.h"

#include <QByteArray>
#include <QList>
#include <QStringList>

#include <memory>
#include <optional>

namespace keel {

// Where each channel's keys come from: files named on the command line,
// never compiled in. Empty fields leave that channel's endpoint refusing
// every notification ("not configured").
struct ChannelKeyFiles {
    QString alipayPublicKey;           // PEM, or Alipay's one-line base64
    QStringList wechatpayCertificates; // PEM platform certificates (several during a rotation)
    QString wechatpayApiV3Key;         // the 32-byte APIv3 key
    QStringList stripeWebhookSecrets;  // files each holding one whsec_ value
    // WeChat Pay's platform public key (public-key mode, pub_key.pem) and
    // the ID its answers name it by (PUB_KEY_ID_…): given together.
    QString wechatpayPublicKey;
    QString wechatpayPublicKeyId;
};

// The keys that verify notifications coming in from the channels.
struct ChannelKeys {
    std::optional<RsaKey> alipayPublicKey;
    // WeChat Pay's platform certificates: those given, and those the
    // WeChat Pay adapter reads from the certificate list as WeChat Pay
    // rotates its key, shared with it (null: none given).
    std::shared_ptr<WechatPayCertificates> wechatpayCertificates;
    QByteArray wechatpayApiV3Key;
    QList<QByteArray> stripeWebhookSecrets;

    // Reads every named file; an error names the option and the file.
    static Result<ChannelKeys> load(const ChannelKeyFiles &files);
};

// One RSA key from the file an option names: a PEM key or certificate, or
// Alipay's one-line base64 public key. The error names the option and file.
Result<RsaKey> readRsaKeyFile(const QString &path, const QString &option);

} // namespace keel
