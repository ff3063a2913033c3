#include "Command.h"
#include "GatewayOptionsParser.h"
#include "ShutdownSignals.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/LibpqConnection.h"
#include "core/recon/ChannelContract.h"
#include "core/signing/ChannelKeys.h"
#include "devkit/sim/ChannelSimulator.h"
#include "devkit/sim/SimStatement.h"

#include <QCommandLineParser>
#include <QFile>
#include <QSaveFile>

#include <cstring>

namespace keel::cli {
namespace {

// The private key the simulated channel signs with, from `--<option>`.
Result<RsaKey> signingKey(const QCommandLineParser &parser, const QString &option)
{
    const QString path = parser.value(option);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fieldError(
            option, QStringLiteral("file_unreadable"),
            QStringLiteral("--%1: cannot read %2: %3").arg(option, path, file.errorString()));
    Result<RsaKey> key =
        RsaKey::fromPem(file.readAll(), QStringLiteral("--%1 (%2)").arg(option, path));
    if (key && !key->canSign())
        return fieldError(option, QStringLiteral("key_invalid"),
                          QStringLiteral("--%1 %2 holds no private key").arg(option, path));
    return key;
}

Status requireAll(const QCommandLineParser &parser, const QString &protocol,
                  std::initializer_list<const char *> options)
{
    for (const char *needed : options)
        if (!parser.isSet(QString::fromLatin1(needed)))
            return fieldError(QString::fromLatin1(needed), QStringLiteral("parameter_missing"),
                              QStringLiteral("--protocol %1 needs --%2")
                                  .arg(protocol, QString::fromLatin1(needed)));
    return {};
}

class ChannelSimCommand final : public Command {
public:
    QString name() const override { return QStringLiteral("channel-sim"); }
    QString summary() const override
    {
        return QStringLiteral(
            "Run the simulated acquirer as its own HTTP server for `keel gateway --channel`; "
            "prints KEEL_CHANNEL=<url> when ready. \"keel channel-sim statement --date "
            "YYYY-MM-DD [--channel NAME] [--format csv|wechatpay|alipay|stripe] [--out FILE]\" "
            "writes "
            "its statement "
            "of a "
            "day, in keel's CSV form or a channel's, with "
            "breaks when told (--drop, --change-amount, --duplicate, --invent, --change-fee N).");
    }
    QStringList actions() const override { return {QStringLiteral("statement")}; }
    bool actionRequired() const override { return false; }

    void addOptions(QCommandLineParser &parser) const override
    {
        addDatabaseOption(parser);
        parser.addOption({QStringLiteral("listen"),
                          QStringLiteral("Address to serve on (default 127.0.0.1:8090; port 0 "
                                         "picks a free one)."),
                          QStringLiteral("HOST:PORT")});
        addTlsServerOptions(parser);
        parser.addOption({QStringLiteral("protocol"),
                          QStringLiteral("keel (keel's channel wire, the default); alipay: also "
                                         "serve Alipay's OpenAPI at POST /gateway.do, answers "
                                         "signed with --alipay-private-key; wechatpay: also "
                                         "serve WeChat Pay API v3 under /v3/, answers signed "
                                         "with --wechatpay-platform-key."),
                          QStringLiteral("keel|alipay|wechatpay")});
        parser.addOption({QStringLiteral("wechatpay-mchid"),
                          QStringLiteral("With --protocol wechatpay: the merchant number whose "
                                         "requests are taken."),
                          QStringLiteral("ID")});
        parser.addOption({QStringLiteral("wechatpay-merchant-certificate"),
                          QStringLiteral("With --protocol wechatpay: the merchant's API "
                                         "certificate (PEM), which verifies every request."),
                          QStringLiteral("FILE")});
        parser.addOption({QStringLiteral("wechatpay-platform-key"),
                          QStringLiteral("With --protocol wechatpay: the PEM private key every "
                                         "answer is signed with."),
                          QStringLiteral("FILE")});
        parser.addOption({QStringLiteral("wechatpay-apiv3-key"),
                          QStringLiteral("With --protocol wechatpay: file with the merchant's "
                                         "APIv3 key; GET /v3/certificates then lists the "
                                         "platform certificate sealed with it."),
                          QStringLiteral("FILE")});
        parser.addOption({QStringLiteral("wechatpay-platform-certificate"),
                          QStringLiteral("With --protocol wechatpay: that key's certificate, "
                                         "whose serial the answers name."),
                          QStringLiteral("FILE")});
        parser.addOption({QStringLiteral("wechatpay-public-key-id"),
                          QStringLiteral("With --protocol wechatpay: name the signer by this "
                                         "PUB_KEY_ID_… (WeChat Pay's public-key mode) instead of "
                                         "the certificate's serial."),
                          QStringLiteral("ID")});
        parser.addOption(
            {QStringLiteral("alipay-app-id"),
             QStringLiteral("With --protocol alipay: the APPID whose calls are taken."),
             QStringLiteral("ID")});
        parser.addOption({QStringLiteral("alipay-app-public-key"),
                          QStringLiteral("With --protocol alipay: file with the app's public key, "
                                         "which verifies every call."),
                          QStringLiteral("FILE")});
        parser.addOption({QStringLiteral("notify"),
                          QStringLiteral("Send each authorization's result to this URL as "
                                         "Alipay does (a gateway's /v1/channels/alipay/notify)."),
                          QStringLiteral("URL")});
        parser.addOption({QStringLiteral("alipay-private-key"),
                          QStringLiteral("PEM private key the notifications are signed with; the "
                                         "gateway is given its public key."),
                          QStringLiteral("FILE")});
        parser.addOption({QStringLiteral("notify-delay"),
                          QStringLiteral("Milliseconds between a trade and its notification "
                                         "(default 200)."),
                          QStringLiteral("MS")});
        addSimulatorOptions(parser);
        parser.addPositionalArgument(QStringLiteral("action"),
                                     QStringLiteral("statement, or nothing to serve."), {});
        parser.addOption({QStringLiteral("date"),
                          QStringLiteral("statement: the day, UTC's or --channel's."),
                          QStringLiteral("YYYY-MM-DD")});
        parser.addOption({QStringLiteral("channel"),
                          QStringLiteral("statement: cut the day in the time zone keel "
                                         "reconciles this channel in (Asia/Shanghai for "
                                         "alipay and wechatpay)."),
                          QStringLiteral("NAME")});
        parser.addOption({QStringLiteral("out"),
                          QStringLiteral("statement: the file to write (default: stdout)."),
                          QStringLiteral("FILE")});
        parser.addOption({QStringLiteral("fee-ppm"),
                          QStringLiteral("statement: the fee on payments, in millionths "
                                         "(default 0)."),
                          QStringLiteral("N")});
        parser.addOption({QStringLiteral("format"),
                          QStringLiteral("statement: csv (keel's form, the default), wechatpay "
                                         "(a WeChat Pay trade bill), alipay (Alipay's ZIP of GBK "
                                         "files, CNY) or stripe (Stripe's payout reconciliation "
                                         "report)."),
                          QStringLiteral("FORMAT")});
        parser.addOption({QStringLiteral("currency"),
                          QStringLiteral("statement: a WeChat Pay bill's one currency "
                                         "(default CNY)."),
                          QStringLiteral("CODE")});
        for (const char *fault : {"drop", "change-amount", "duplicate", "invent", "change-fee"})
            parser.addOption({QString::fromLatin1(fault),
                              QStringLiteral("statement: put this break on N lines."),
                              QStringLiteral("N")});
    }

    int run(const QCommandLineParser &parser) override
    {
        if (!parser.positionalArguments().isEmpty())
            return writeStatement(parser);
        Result<ConnectionSettings> settings = ConnectionSettings::parse(databaseOption(parser));
        if (!settings)
            return fail(name(), settings.error());
        Result<SimulatedChannelConfig> behaviour = simulatorConfig(parser);
        if (!behaviour)
            return fail(name(), behaviour.error());
        Result<std::pair<QString, int>> listen = parseListen(
            parser.isSet(QStringLiteral("listen")) ? parser.value(QStringLiteral("listen"))
                                                   : QStringLiteral("127.0.0.1:8090"));
        if (!listen)
            return fail(name(), listen.error());
        ChannelSimulatorOptions options;
        options.settings = *settings;
        options.settings.set(QStringLiteral("application_name"),
                             QStringLiteral("keel-channel-sim"));
        options.behaviour = *behaviour;
        options.http.host = listen->first;
        options.http.port = listen->second;
        applyTlsServerOptions(parser, options.http);
        if (Status notifier = notifierOptions(parser, options); !notifier)
            return fail(name(), notifier.error());
        if (Status protocol = protocolOptions(parser, options); !protocol)
            return fail(name(), protocol.error());

        ShutdownSignals signals;
        Result<std::unique_ptr<ChannelSimulator>> simulator =
            ChannelSimulator::start(std::move(options));
        if (!simulator)
            return fail(name(), simulator.error());
        printLine(QStringLiteral("KEEL_CHANNEL=%1").arg((*simulator)->url()));
        const int signal = signals.serve([] {});
        note(QStringLiteral("stopping (%1)").arg(QString::fromLatin1(strsignal(signal))));
        (*simulator)->stop();
        return ExitOk;
    }

private:
    int writeStatement(const QCommandLineParser &parser)
    {
        const QDate day = QDate::fromString(parser.value(QStringLiteral("date")), Qt::ISODate);
        if (!day.isValid())
            return fail(name(), makeError(ErrorKind::Usage,
                                          QStringLiteral("--date must be a day as YYYY-MM-DD")));
        StatementFaults faults;
        const std::pair<const char *, int *> counts[] = {{"drop", &faults.drop},
                                                         {"change-amount", &faults.changeAmount},
                                                         {"duplicate", &faults.duplicate},
                                                         {"invent", &faults.invent},
                                                         {"change-fee", &faults.changeFee}};
        for (const auto &[option, count] : counts) {
            Result<int> read = intOption(parser, QString::fromLatin1(option), 0, 0, 1000000);
            if (!read)
                return fail(name(), read.error());
            *count = *read;
        }
        Result<int> fee = intOption(parser, QStringLiteral("fee-ppm"), 0, 0, 1000000);
        if (!fee)
            return fail(name(), fee.error());
        StatementLayout layout;
        if (parser.isSet(QStringLiteral("format"))) {
            const std::optional<StatementFormat> format =
                statementFormatNamed(parser.value(QStringLiteral("format")));
            if (!format)
                return fail(name(), makeError(ErrorKind::Usage,
                                              QStringLiteral("--format must be csv, wechatpay, "
                                                             "alipay or stripe")));
            layout.format = *format;
        }
        if (parser.isSet(QStringLiteral("currency")))
            layout.currency = parser.value(QStringLiteral("currency")).toUpper();
        Result<LibpqConnection> session = openDatabase(parser);
        if (!session)
            return fail(name(), session.error());
        if (parser.isSet(QStringLiteral("channel"))) {
            Result<QString> zone =
                channelTimeZone(*session, parser.value(QStringLiteral("channel")));
            if (!zone)
                return fail(name(), zone.error());
            layout.dayZone = *zone;
        }
        Result<QByteArray> statement = simulatorStatement(*session, day, *fee, faults, layout);
        if (!statement)
            return fail(name(), statement.error());
        const QString out = parser.value(QStringLiteral("out"));
        if (out.isEmpty()) {
            std::fwrite(statement->constData(), 1, size_t(statement->size()), stdout);
            return ExitOk;
        }
        QSaveFile file(out);
        if (!file.open(QIODevice::WriteOnly) || file.write(*statement) != statement->size() ||
            !file.commit())
            return fail(
                name(),
                makeError(
                    ErrorKind::Environment,
                    QStringLiteral("cannot write --out %1: %2").arg(out, file.errorString())));
        return ExitOk;
    }

    static Status notifierOptions(const QCommandLineParser &parser,
                                  ChannelSimulatorOptions &options)
    {
        const bool notify = parser.isSet(QStringLiteral("notify"));
        if (notify && !parser.isSet(QStringLiteral("alipay-private-key")))
            return fieldError(QStringLiteral("alipay-private-key"),
                              QStringLiteral("parameter_missing"),
                              QStringLiteral("--notify needs --alipay-private-key: "
                                             "notifications are signed"));
        if (!notify)
            return {};
        Result<int> delay = intOption(parser, QStringLiteral("notify-delay"), 200, 0, 600000);
        if (!delay)
            return delay.error();
        Result<RsaKey> key = signingKey(parser, QStringLiteral("alipay-private-key"));
        if (!key)
            return key.error();
        AlipayNotifierOptions notifier;
        notifier.url = parser.value(QStringLiteral("notify"));
        notifier.signingKey = *key;
        notifier.delayMs = *delay;
        options.notifier = notifier;
        return {};
    }

    static Status protocolOptions(const QCommandLineParser &parser,
                                  ChannelSimulatorOptions &options)
    {
        const QString protocol = parser.value(QStringLiteral("protocol"));
        if (protocol.isEmpty() || protocol == QLatin1String("keel"))
            return {};
        if (protocol == QLatin1String("alipay"))
            return alipayProtocol(parser, options);
        if (protocol == QLatin1String("wechatpay"))
            return wechatpayProtocol(parser, options);
        return fieldError(QStringLiteral("protocol"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("--protocol must be keel, alipay or wechatpay"));
    }

    static Status alipayProtocol(const QCommandLineParser &parser, ChannelSimulatorOptions &options)
    {
        if (Status complete =
                requireAll(parser, QStringLiteral("alipay"),
                           {"alipay-app-id", "alipay-app-public-key", "alipay-private-key"});
            !complete)
            return complete;
        Result<RsaKey> appKey =
            readRsaKeyFile(parser.value(QStringLiteral("alipay-app-public-key")),
                           QStringLiteral("alipay-app-public-key"));
        if (!appKey)
            return appKey.error();
        Result<RsaKey> signing = signingKey(parser, QStringLiteral("alipay-private-key"));
        if (!signing)
            return signing.error();
        options.alipayGateway =
            AlipayGatewayOptions{parser.value(QStringLiteral("alipay-app-id")), *appKey, *signing};
        return {};
    }

    static Status wechatpayProtocol(const QCommandLineParser &parser,
                                    ChannelSimulatorOptions &options)
    {
        if (Status complete =
                requireAll(parser, QStringLiteral("wechatpay"),
                           {"wechatpay-mchid", "wechatpay-merchant-certificate",
                            "wechatpay-platform-key", "wechatpay-platform-certificate"});
            !complete)
            return complete;
        Result<RsaKey> merchant =
            readRsaKeyFile(parser.value(QStringLiteral("wechatpay-merchant-certificate")),
                           QStringLiteral("wechatpay-merchant-certificate"));
        if (!merchant)
            return merchant.error();
        Result<RsaKey> platform =
            readRsaKeyFile(parser.value(QStringLiteral("wechatpay-platform-certificate")),
                           QStringLiteral("wechatpay-platform-certificate"));
        if (!platform)
            return platform.error();
        for (const auto &[option, key] : {std::pair{"wechatpay-merchant-certificate", &*merchant},
                                          std::pair{"wechatpay-platform-certificate", &*platform}})
            if (key->certificateSerial().isEmpty())
                return fieldError(QString::fromLatin1(option), QStringLiteral("key_invalid"),
                                  QStringLiteral("--%1 must be an X.509 certificate: its serial "
                                                 "number names it")
                                      .arg(QString::fromLatin1(option)));
        Result<RsaKey> signing = signingKey(parser, QStringLiteral("wechatpay-platform-key"));
        if (!signing)
            return signing.error();
        WechatPayGatewayOptions gateway{parser.value(QStringLiteral("wechatpay-mchid")), *merchant,
                                        *signing, platform->certificateSerial().toLatin1()};
        if (parser.isSet(QStringLiteral("wechatpay-public-key-id")))
            gateway.platformSerial =
                parser.value(QStringLiteral("wechatpay-public-key-id")).toLatin1();
        // With the APIv3 key, the certificate list is served too.
        if (parser.isSet(QStringLiteral("wechatpay-apiv3-key"))) {
            Result<ChannelKeys> keys = ChannelKeys::load(
                {{}, {}, parser.value(QStringLiteral("wechatpay-apiv3-key")), {}, {}, {}});
            if (!keys)
                return keys.error();
            QFile pem(parser.value(QStringLiteral("wechatpay-platform-certificate")));
            if (!pem.open(QIODevice::ReadOnly))
                return fieldError(QStringLiteral("wechatpay-platform-certificate"),
                                  QStringLiteral("file_unreadable"), pem.errorString());
            gateway.platformCertificatePem = pem.readAll();
            gateway.apiV3Key = keys->wechatpayApiV3Key;
        }
        options.wechatpayGateway = gateway;
        return {};
    }
};

} // namespace

std::unique_ptr<Command> makeChannelSimCommand()
{
    return std::make_unique<ChannelSimCommand>();
}

} // namespace keel::cli
