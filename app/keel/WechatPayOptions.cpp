#include "WechatPayOptions.h"

#include "Command.h"
#include "GatewayOptionsParser.h"

#include "core/channel/WechatPayChannel.h"
#include "core/signing/ChannelKeys.h"

#include <QCommandLineParser>
#include <QUrl>

namespace keel::cli {

void addWechatPayChannelOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("wechatpay-certificate"),
                      QStringLiteral("File with a WeChat Pay platform certificate (PEM; repeat "
                                     "during a rotation): verifies /v1/channels/wechatpay/notify "
                                     "and, with --channel wechatpay, every answer."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("wechatpay-public-key"),
                      QStringLiteral("For a merchant WeChat Pay put on public-key mode: file with "
                                     "its platform public key (pub_key.pem), instead of or beside "
                                     "--wechatpay-certificate."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("wechatpay-public-key-id"),
                      QStringLiteral("The ID WeChat Pay shows beside that key (PUB_KEY_ID_…)."),
                      QStringLiteral("ID")});
    parser.addOption({QStringLiteral("wechatpay-apiv3-key"),
                      QStringLiteral("File with the 32-character WeChat Pay APIv3 key: decrypts "
                                     "its notifications (gateway) and, with --channel wechatpay, "
                                     "the certificate list read when its key rotates."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("wechatpay-mchid"),
                      QStringLiteral("With --channel wechatpay: the merchant number (直连商户号)."),
                      QStringLiteral("ID")});
    parser.addOption({QStringLiteral("wechatpay-appid"),
                      QStringLiteral("With --channel wechatpay: the AppID bound to it."),
                      QStringLiteral("ID")});
    parser.addOption({QStringLiteral("wechatpay-merchant-key"),
                      QStringLiteral("With --channel wechatpay: file with the merchant's API "
                                     "private key (apiclient_key.pem), which signs every "
                                     "request."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("wechatpay-merchant-certificate"),
                      QStringLiteral("With --channel wechatpay: the merchant's API certificate "
                                     "(apiclient_cert.pem): its serial number names the key."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("wechatpay-api"),
                      QStringLiteral("With --channel wechatpay: the API's address (default "
                                     "https://api.mch.weixin.qq.com)."),
                      QStringLiteral("URL")});
    parser.addOption({QStringLiteral("wechatpay-payment-code-lifetime"),
                      QStringLiteral("With --channel wechatpay: seconds after which a payment "
                                     "code can no longer pay, so an order WeChat Pay never saw "
                                     "may be closed (default 600)."),
                      QStringLiteral("SECONDS")});
}

namespace {

const QByteArray MatchProbe = "keel: is this the key of that certificate?";

// The merchant's key and certificate must be a pair: WeChat Pay would
// refuse every request signed by a key its serial does not name.
Status readMerchantKeys(const QCommandLineParser &parser, WechatPayChannelOptions &options)
{
    Result<RsaKey> key = readRsaKeyFile(parser.value(QStringLiteral("wechatpay-merchant-key")),
                                        QStringLiteral("wechatpay-merchant-key"));
    if (!key)
        return key.error();
    Result<RsaKey> certificate =
        readRsaKeyFile(parser.value(QStringLiteral("wechatpay-merchant-certificate")),
                       QStringLiteral("wechatpay-merchant-certificate"));
    if (!certificate)
        return certificate.error();
    if (!key->canSign())
        return fieldError(QStringLiteral("wechatpay-merchant-key"), QStringLiteral("key_invalid"),
                          QStringLiteral("--wechatpay-merchant-key must hold the merchant's API "
                                         "private key"));
    const Result<QByteArray> probe = key->signSha256(MatchProbe);
    if (certificate->certificateSerial().isEmpty())
        return fieldError(QStringLiteral("wechatpay-merchant-certificate"),
                          QStringLiteral("key_invalid"),
                          QStringLiteral("--wechatpay-merchant-certificate must be an X.509 "
                                         "certificate: WeChat Pay knows the key by its serial"));
    if (probe && !certificate->verifySha256(MatchProbe, *probe))
        return fieldError(QStringLiteral("wechatpay-merchant-key"), QStringLiteral("key_invalid"),
                          QStringLiteral("--wechatpay-merchant-key is not the key of "
                                         "--wechatpay-merchant-certificate"));
    options.merchantKey = *key;
    options.merchantSerial = certificate->certificateSerial().toLatin1();
    return {};
}

// The merchant's own key given as WeChat Pay's would have keel believe
// answers signed by a key keel (and the merchant's other systems) hold.
bool merchantsOwn(const RsaKey &platformKey, const Result<QByteArray> &merchantSigned)
{
    return merchantSigned && platformKey.verifySha256(MatchProbe, *merchantSigned);
}

} // namespace

Result<ChannelFactory> wechatpayOption(const QCommandLineParser &parser, int timeoutMs,
                                       std::shared_ptr<WechatPayCertificates> shared)
{
    for (const char *needed : {"wechatpay-mchid", "wechatpay-appid", "wechatpay-merchant-key",
                               "wechatpay-merchant-certificate"})
        if (!parser.isSet(QString::fromLatin1(needed)))
            return fieldError(
                QString::fromLatin1(needed), QStringLiteral("parameter_missing"),
                QStringLiteral("--channel wechatpay needs --%1").arg(QString::fromLatin1(needed)));
    if (!parser.isSet(QStringLiteral("wechatpay-certificate")) &&
        !parser.isSet(QStringLiteral("wechatpay-public-key")))
        return fieldError(
            QStringLiteral("wechatpay-certificate"), QStringLiteral("parameter_missing"),
            QStringLiteral("--channel wechatpay needs --wechatpay-certificate (or, in "
                           "public-key mode, --wechatpay-public-key): WeChat Pay's "
                           "answers are verified with it"));
    WechatPayChannelOptions options;
    options.mchid = parser.value(QStringLiteral("wechatpay-mchid"));
    options.appid = parser.value(QStringLiteral("wechatpay-appid"));
    if (Status keys = readMerchantKeys(parser, options); !keys)
        return keys.error();
    const Result<QByteArray> merchantSigned = options.merchantKey.signSha256(MatchProbe);
    for (const QString &path : parser.values(QStringLiteral("wechatpay-certificate"))) {
        Result<RsaKey> certificate = readRsaKeyFile(path, QStringLiteral("wechatpay-certificate"));
        if (!certificate)
            return certificate.error();
        // A key that can sign is not WeChat Pay's: answers it "verifies"
        // could be keel's own word.
        if (certificate->canSign() || certificate->certificateSerial().isEmpty())
            return fieldError(QStringLiteral("wechatpay-certificate"),
                              QStringLiteral("key_invalid"),
                              QStringLiteral("--wechatpay-certificate %1 must be a WeChat Pay "
                                             "platform certificate")
                                  .arg(path));
        if (certificate->certificateSerial().toLatin1() == options.merchantSerial ||
            merchantsOwn(*certificate, merchantSigned))
            return fieldError(QStringLiteral("wechatpay-certificate"),
                              QStringLiteral("key_invalid"),
                              QStringLiteral("--wechatpay-certificate %1 is the merchant's own "
                                             "certificate, not WeChat Pay's")
                                  .arg(path));
        options.platformCertificates.append(*certificate);
    }
    // The APIv3 key (also what decrypts notifications) lets keel read WeChat
    // Pay's certificate list when it rotates its key.
    Result<ChannelKeys> apiV3 =
        ChannelKeys::load({{},
                           {},
                           parser.value(QStringLiteral("wechatpay-apiv3-key")),
                           {},
                           parser.value(QStringLiteral("wechatpay-public-key")),
                           parser.value(QStringLiteral("wechatpay-public-key-id"))});
    if (!apiV3)
        return apiV3.error();
    options.apiV3Key = apiV3->wechatpayApiV3Key;
    if (apiV3->wechatpayCertificates)
        for (const RsaKey &publicKey : apiV3->wechatpayCertificates->current()) {
            if (merchantsOwn(publicKey, merchantSigned))
                return fieldError(QStringLiteral("wechatpay-public-key"),
                                  QStringLiteral("key_invalid"),
                                  QStringLiteral("--wechatpay-public-key is the merchant's own "
                                                 "key, not WeChat Pay's"));
            options.platformCertificates.append(publicKey);
        }
    options.certificates = std::move(shared);
    if (parser.isSet(QStringLiteral("wechatpay-api")))
        options.api = QUrl(parser.value(QStringLiteral("wechatpay-api")), QUrl::StrictMode);
    Result<int> lifetime =
        paymentCodeLifetime(parser, QStringLiteral("wechatpay-payment-code-lifetime"), timeoutMs);
    if (!lifetime)
        return lifetime.error();
    options.paymentCodeLifetimeSeconds = *lifetime;
    options.timeoutMs = timeoutMs;
    options.authority = parser.value(QStringLiteral("channel-ca-file"));
    return wechatpayChannel(std::move(options));
}

} // namespace keel::cli
