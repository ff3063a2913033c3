#include "GatewayOptionsParser.h"

#include "core/channel/AlipayChannel.h"
#include "core/channel/HttpChannel.h"
#include "core/channel/SimulatedChannel.h"
#include "core/net/HttpClient.h"
#include "core/net/TlsSession.h"
#include "core/signing/ChannelKeys.h"

#include "Command.h"
#include "WechatPayOptions.h"

#include <QCommandLineParser>
#include <QThread>
#include <QUrl>

namespace keel::cli {

void addGatewayOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("threads"),
                      QStringLiteral("HTTP worker threads, each with its own database connection "
                                     "(default 8)."),
                      QStringLiteral("N")});
    parser.addOption({QStringLiteral("idempotency-ttl"),
                      QStringLiteral("Seconds an Idempotency-Key is remembered (default 86400, at "
                                     "most 604800 = 7 days)."),
                      QStringLiteral("SECONDS")});
    parser.addOption({QStringLiteral("lock-timeout"),
                      QStringLiteral("Milliseconds after which a request holding a key is presumed "
                                     "dead and the key may be taken over (default 30000)."),
                      QStringLiteral("MS")});
    parser.addOption(
        {QStringLiteral("reconcile-after"),
         QStringLiteral("Seconds a payment may sit in Authorizing/Capturing before the "
                        "channel is asked what happened (default 30)."),
         QStringLiteral("SECONDS")});
    parser.addOption({QStringLiteral("stripe-webhook-secret"),
                      QStringLiteral("File with a Stripe webhook secret (whsec_...; repeat during "
                                     "a rotation): verifies /v1/channels/stripe/webhook."),
                      QStringLiteral("FILE")});
    addTlsServerOptions(parser);
    addChannelOptions(parser);
}

void addTlsServerOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("tls-cert"),
                      QStringLiteral("Serve HTTPS (TLS 1.2 or later) with this PEM certificate "
                                     "chain, the server's own certificate first."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("tls-key"),
                      QStringLiteral("With --tls-cert: the PEM private key of its certificate."),
                      QStringLiteral("FILE")});
}

void applyTlsServerOptions(const QCommandLineParser &parser, HttpServerOptions &http)
{
    http.tlsCertificateFile = parser.value(QStringLiteral("tls-cert"));
    http.tlsKeyFile = parser.value(QStringLiteral("tls-key"));
}

void addChannelOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("channel"),
                      QStringLiteral("alipay: Alipay's OpenAPI (the --alipay-* options); "
                                     "wechatpay: WeChat Pay API v3 (the --wechatpay-* options); "
                                     "a URL: a keel channel-sim over HTTPS; default: the "
                                     "in-process simulator."),
                      QStringLiteral("alipay|wechatpay|URL")});
    parser.addOption({QStringLiteral("channel-timeout"),
                      QStringLiteral("With --channel: milliseconds to wait for its answer before "
                                     "the operation is in doubt and reconciled (default 10000)."),
                      QStringLiteral("MS")});
    parser.addOption({QStringLiteral("alipay-public-key"),
                      QStringLiteral("File with Alipay's public key (PEM or its one-line base64): "
                                     "verifies /v1/channels/alipay/notify and, with --channel "
                                     "alipay, every answer."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("alipay-app-id"),
                      QStringLiteral("With --channel alipay: the app's APPID."),
                      QStringLiteral("ID")});
    parser.addOption({QStringLiteral("alipay-app-key"),
                      QStringLiteral("With --channel alipay: file with the app's PEM private key, "
                                     "which signs every call."),
                      QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("alipay-gateway"),
                      QStringLiteral("With --channel alipay: the OpenAPI gateway (default "
                                     "https://openapi.alipay.com/gateway.do)."),
                      QStringLiteral("URL")});
    parser.addOption({QStringLiteral("alipay-payment-code-lifetime"),
                      QStringLiteral("With --channel alipay: seconds after which a payment code "
                                     "can no longer pay, so a trade Alipay never saw may be "
                                     "closed (default 600)."),
                      QStringLiteral("SECONDS")});
    parser.addOption({QStringLiteral("alipay-notify-url"),
                      QStringLiteral("With --channel alipay: where Alipay sends trade results "
                                     "(this gateway's /v1/channels/alipay/notify)."),
                      QStringLiteral("URL")});
    parser.addOption({QStringLiteral("ca-file"),
                      QStringLiteral("PEM file of a certificate authority to trust, beside the "
                                     "system's, for every https:// call this process makes "
                                     "(merchant notifications, saga and TCC participants)."),
                      QStringLiteral("FILE")});
    parser.addOption(
        {QStringLiteral("channel-ca-file"),
         QStringLiteral("PEM file of a certificate authority trusted for the channel "
                        "alone (--channel URL, alipay or wechatpay), beside the system's: a "
                        "channel's private CA need not be trusted for merchants' "
                        "and participants' hosts."),
         QStringLiteral("FILE")});
    parser.addOption({QStringLiteral("allow-http"),
                      QStringLiteral("Also call plain http:// merchant notify URLs, saga and TCC "
                                     "participants and --channel, and accept them in saga "
                                     "definitions: for development and tests only.")});
    addWechatPayChannelOptions(parser);
    addSimulatorOptions(parser);
}

void addSimulatorOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("sim-latency"),
                      QStringLiteral("Simulated channel: milliseconds per call (default 0)."),
                      QStringLiteral("MS")});
    parser.addOption({QStringLiteral("sim-decline-rate"),
                      QStringLiteral("Simulated channel: share of authorizations declined (0-1)."),
                      QStringLiteral("R")});
    parser.addOption(
        {QStringLiteral("sim-error-rate"),
         QStringLiteral("Simulated channel: share of calls refused unprocessed (0-1)."),
         QStringLiteral("R")});
    parser.addOption(
        {QStringLiteral("sim-ambiguous-rate"),
         QStringLiteral("Simulated channel: share processed whose answer is lost (0-1)."),
         QStringLiteral("R")});
    parser.addOption(
        {QStringLiteral("sim-refund-failure-rate"),
         QStringLiteral("Simulated channel: share of refunds the network refuses (0-1); refunds "
                        "of charges made with tok_refundFails always fail."),
         QStringLiteral("R")});
}

namespace {

Result<ChannelFactory> alipayOption(const QCommandLineParser &parser, int timeoutMs)
{
    for (const char *needed : {"alipay-app-id", "alipay-app-key", "alipay-public-key"})
        if (!parser.isSet(QString::fromLatin1(needed)))
            return fieldError(
                QString::fromLatin1(needed), QStringLiteral("parameter_missing"),
                QStringLiteral("--channel alipay needs --%1").arg(QString::fromLatin1(needed)));
    AlipayChannelOptions options;
    options.appId = parser.value(QStringLiteral("alipay-app-id"));
    Result<RsaKey> appKey = readRsaKeyFile(parser.value(QStringLiteral("alipay-app-key")),
                                           QStringLiteral("alipay-app-key"));
    if (!appKey)
        return appKey.error();
    Result<RsaKey> alipayKey = readRsaKeyFile(parser.value(QStringLiteral("alipay-public-key")),
                                              QStringLiteral("alipay-public-key"));
    if (!alipayKey)
        return alipayKey.error();
    // A private key here is the app's own, given in the wrong place: answers
    // it "verifies" would be keel's word, not Alipay's.
    if (alipayKey->canSign())
        return fieldError(QStringLiteral("alipay-public-key"), QStringLiteral("key_invalid"),
                          QStringLiteral("--alipay-public-key must be Alipay's public key, not a "
                                         "private key"));
    options.appPrivateKey = *appKey;
    options.alipayPublicKey = *alipayKey;
    if (parser.isSet(QStringLiteral("alipay-gateway")))
        options.gateway = QUrl(parser.value(QStringLiteral("alipay-gateway")), QUrl::StrictMode);
    options.notifyUrl = parser.value(QStringLiteral("alipay-notify-url"));
    Result<int> lifetime =
        paymentCodeLifetime(parser, QStringLiteral("alipay-payment-code-lifetime"), timeoutMs);
    if (!lifetime)
        return lifetime.error();
    options.paymentCodeLifetimeSeconds = *lifetime;
    options.timeoutMs = timeoutMs;
    options.authority = parser.value(QStringLiteral("channel-ca-file"));
    return alipayChannel(std::move(options));
}

} // namespace

// How this process reaches others: the channel, and whom its TLS calls
// trust (set for the whole process, as every outgoing call shares it).
Result<ChannelFactory> channelOption(const QCommandLineParser &parser,
                                     std::shared_ptr<WechatPayCertificates> wechatpayCertificates)
{
    // Only ever allowed here, never withdrawn: keel dev allows it itself.
    if (parser.isSet(QStringLiteral("allow-http")))
        HttpClient::allowPlainHttp(true);
    if (parser.isSet(QStringLiteral("ca-file"))) {
        if (const QString unread = TlsSession::trustAlso(parser.value(QStringLiteral("ca-file")));
            !unread.isEmpty())
            return fieldError(QStringLiteral("ca-file"), QStringLiteral("parameter_invalid"),
                              QStringLiteral("--ca-file: %1").arg(unread));
    }
    if (parser.isSet(QStringLiteral("channel"))) {
        for (const QString &option : parser.optionNames())
            if (option.startsWith(QLatin1String("sim-")))
                return fieldError(option, QStringLiteral("parameter_invalid"),
                                  QStringLiteral("--%1 shapes the in-process simulator; with "
                                                 "--channel give it to keel channel-sim")
                                      .arg(option));
        Result<int> timeout =
            intOption(parser, QStringLiteral("channel-timeout"), 10000, 100, 600000);
        if (!timeout)
            return timeout.error();
        const QString authority = parser.value(QStringLiteral("channel-ca-file"));
        if (!authority.isEmpty())
            if (const QString unread = TlsSession::checkAuthority(authority); !unread.isEmpty())
                return fieldError(QStringLiteral("channel-ca-file"),
                                  QStringLiteral("parameter_invalid"),
                                  QStringLiteral("--channel-ca-file: %1").arg(unread));
        if (parser.value(QStringLiteral("channel")) == QLatin1String("alipay"))
            return alipayOption(parser, *timeout);
        if (parser.value(QStringLiteral("channel")) == QLatin1String("wechatpay"))
            return wechatpayOption(parser, *timeout, std::move(wechatpayCertificates));
        return httpChannel(parser.value(QStringLiteral("channel")), *timeout, authority);
    }
    if (parser.isSet(QStringLiteral("channel-ca-file")))
        return fieldError(QStringLiteral("channel-ca-file"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("--channel-ca-file needs --channel: the in-process "
                                         "simulator is called over no network"));
    Result<SimulatedChannelConfig> config = simulatorConfig(parser);
    if (!config)
        return config.error();
    return simulatedChannel(*config);
}

Result<int> paymentCodeLifetime(const QCommandLineParser &parser, const QString &option,
                                int timeoutMs)
{
    Result<int> lifetime = intOption(parser, option, 600, 60, 86400);
    if (lifetime && qint64(*lifetime) * 1000 <= timeoutMs)
        return fieldError(option, QStringLiteral("parameter_invalid"),
                          QStringLiteral("--%1 must be longer than --channel-timeout: a request "
                                         "still waiting for its answer could still pay")
                              .arg(option));
    return lifetime;
}

Result<SimulatedChannelConfig> simulatorConfig(const QCommandLineParser &parser)
{
    Result<int> latency = intOption(parser, QStringLiteral("sim-latency"), 0, 0, 60000);
    Result<double> decline = rateOption(parser, QStringLiteral("sim-decline-rate"));
    Result<double> error = rateOption(parser, QStringLiteral("sim-error-rate"));
    Result<double> ambiguous = rateOption(parser, QStringLiteral("sim-ambiguous-rate"));
    Result<double> refundFailure = rateOption(parser, QStringLiteral("sim-refund-failure-rate"));
    for (const Error *failed :
         {latency ? nullptr : &latency.error(), decline ? nullptr : &decline.error(),
          error ? nullptr : &error.error(), ambiguous ? nullptr : &ambiguous.error(),
          refundFailure ? nullptr : &refundFailure.error()})
        if (failed)
            return *failed;
    return SimulatedChannelConfig{*latency, *decline, *error, *ambiguous, *refundFailure};
}

Result<GatewayOptions> gatewayOptions(const QCommandLineParser &parser)
{
    GatewayOptions options;
    Result<int> threads = intOption(parser, QStringLiteral("threads"), 8, 1, 256);
    Result<int> ttl = intOption(parser, QStringLiteral("idempotency-ttl"), 86400, 1, 604800);
    Result<int> lock = intOption(parser, QStringLiteral("lock-timeout"), 30000, 100, 3600000);
    Result<int> reconcile = intOption(parser, QStringLiteral("reconcile-after"), 30, 0, 86400);
    Result<ChannelKeys> keys =
        ChannelKeys::load({parser.value(QStringLiteral("alipay-public-key")),
                           parser.values(QStringLiteral("wechatpay-certificate")),
                           parser.value(QStringLiteral("wechatpay-apiv3-key")),
                           parser.values(QStringLiteral("stripe-webhook-secret")),
                           parser.value(QStringLiteral("wechatpay-public-key")),
                           parser.value(QStringLiteral("wechatpay-public-key-id"))});
    if (!keys)
        return keys.error();
    // The WeChat Pay adapter and the notification endpoint share the platform
    // certificates, so a rotation the adapter learns of reaches both.
    Result<ChannelFactory> channel = channelOption(parser, keys->wechatpayCertificates);
    for (const Error *failed :
         {threads ? nullptr : &threads.error(), ttl ? nullptr : &ttl.error(),
          lock ? nullptr : &lock.error(), reconcile ? nullptr : &reconcile.error(),
          channel ? nullptr : &channel.error()})
        if (failed)
            return *failed;
    options.http.threads = *threads;
    applyTlsServerOptions(parser, options.http);
    options.idempotency.ttlSeconds = *ttl;
    options.idempotency.lockTimeoutMs = *lock;
    options.reconcileGraceSeconds = *reconcile;
    options.channel = *channel;
    options.channelKeys = std::make_shared<const ChannelKeys>(*std::move(keys));
    return options;
}

} // namespace keel::cli
