#include "Command.h"

#include "core/channel/AlipayChannel.h"
#include "core/channel/WechatPayChannel.h"
#include "core/db/ConnectionSettings.h"
#include "core/db/LibpqConnection.h"
#include "core/net/HttpClient.h"
#include "core/net/TlsSession.h"
#include "core/outbox/AmqpPublisher.h"
#include "core/runtime/DeploymentCheck.h"

#include <QCommandLineParser>
#include <QFile>
#include <QHash>
#include <QRegularExpression>
#include <QSet>
#include <QUrl>

namespace keel::cli {
namespace {

// The options whose value is a file a service reads, and whether it holds a secret.
const QHash<QString, bool> &fileOptions()
{
    static const QHash<QString, bool> options{
        {QStringLiteral("tls-key"), true},
        {QStringLiteral("alipay-app-key"), true},
        {QStringLiteral("wechatpay-merchant-key"), true},
        {QStringLiteral("wechatpay-apiv3-key"), true},
        {QStringLiteral("stripe-webhook-secret"), true},
        {QStringLiteral("tls-cert"), false},
        {QStringLiteral("alipay-public-key"), false},
        {QStringLiteral("wechatpay-certificate"), false},
        {QStringLiteral("wechatpay-merchant-certificate"), false},
        {QStringLiteral("wechatpay-public-key"), false},
        {QStringLiteral("channel-ca-file"), false},
        {QStringLiteral("ca-file"), false},
    };
    return options;
}

class DoctorCommand final : public Command {
public:
    QString name() const override { return QStringLiteral("doctor"); }
    QString summary() const override
    {
        return QStringLiteral("Check a service's configuration (the files systemd gives it): the "
                              "database login, schema and grants, key files, the broker, the hosts "
                              "it calls over TLS. Exit status 1 if anything needs fixing.");
    }

    void addOptions(QCommandLineParser &parser) const override
    {
        addDatabaseOption(parser);
        parser.addOption({QStringLiteral("env"),
                          QStringLiteral("An EnvironmentFile of the unit (KEY=VALUE lines), e.g. "
                                         "/etc/keel/keel.env; repeat for each."),
                          QStringLiteral("FILE")});
    }

    int run(const QCommandLineParser &parser) override
    {
        QList<Finding> findings;
        QHash<QString, QString> environment;
        QList<Service> services;
        for (const QString &path : parser.values(QStringLiteral("env"))) {
            QHash<QString, QString> own;
            findings << readEnvironment(path, own);
            for (auto it = own.cbegin(); it != own.cend(); ++it) {
                environment.insert(it.key(), it.value());
                if (it.key().endsWith(QLatin1String("_OPTIONS")))
                    services << Service{it.key(), words(it.value())};
            }
        }
        // As systemd would set them, so that libpq finds the service and pgpass files.
        for (auto it = environment.cbegin(); it != environment.cend(); ++it)
            qputenv(it.key().toLocal8Bit().constData(), it.value().toLocal8Bit());
        const QString dsn = parser.isSet(QStringLiteral("db")) ? parser.value(QStringLiteral("db"))
                                                               : qEnvironmentVariable("KEEL_DB");
        findings << database(dsn);
        if (qEnvironmentVariableIsSet("PGPASSFILE"))
            findings << checkServiceFile(QStringLiteral("PGPASSFILE"),
                                         qEnvironmentVariable("PGPASSFILE"), true);
        for (const Service &service : std::as_const(services))
            findings << files(service.words);
        findings << calls(services, dsn);
        if (qEnvironmentVariableIsSet("KEEL_AMQP")) {
            QString relayExchange = QStringLiteral("keel.events");
            for (const Service &service : std::as_const(services))
                if (service.variable == QLatin1String("KEEL_RELAY_OPTIONS") &&
                    !option(service.words, QStringLiteral("exchange")).isEmpty())
                    relayExchange = option(service.words, QStringLiteral("exchange"));
            findings << brokers(qEnvironmentVariable("KEEL_AMQP"), relayExchange);
        }
        bool healthy = true;
        for (const Finding &finding : std::as_const(findings)) {
            healthy = healthy && finding.ok();
            printLine(finding.ok()
                          ? QStringLiteral("ok   %1: %2").arg(finding.subject, finding.found)
                          : QStringLiteral("FIX  %1: %2").arg(finding.subject, finding.fix));
        }
        return healthy ? ExitOk : 1;
    }

private:
    static QList<Finding> readEnvironment(const QString &path, QHash<QString, QString> &into)
    {
        Result<QHash<QString, QString>> read = readEnvironmentFile(path);
        if (!read)
            return {{QStringLiteral("env %1").arg(path), {}, read.error().message}};
        into = *read;
        return {};
    }

    static QList<Finding> database(const QString &dsn)
    {
        if (dsn.isEmpty())
            return {{QStringLiteral("database"),
                     {},
                     QStringLiteral("KEEL_DB is not set (in /etc/keel/keel.env)")}};
        Result<ConnectionSettings> settings = ConnectionSettings::parse(dsn);
        if (!settings)
            return {{QStringLiteral("database"), {}, settings.error().message}};
        Result<LibpqConnection> session = LibpqConnection::open(*settings);
        if (!session)
            return {{QStringLiteral("database"), {}, session.error().message}};
        return QList<Finding>{{QStringLiteral("database"), settings->redacted(), {}}} +
               checkServiceLogin(*session);
    }

    static QList<Finding> files(const QStringList &words)
    {
        QList<Finding> found;
        for (qsizetype i = 0; i + 1 < words.size(); ++i) {
            const QString option =
                words[i].startsWith(QLatin1String("--")) ? words[i].mid(2) : QString();
            if (fileOptions().contains(option))
                found << checkServiceFile(words[i], words[i + 1], fileOptions().value(option));
        }
        return found;
    }

    // One service's options (a *_OPTIONS variable), as words: "--name=value"
    // is two, as the service's own parser reads it.
    struct Service {
        QString variable;
        QStringList words;
    };
    static QStringList words(const QString &options)
    {
        QStringList words;
        for (const QString &word :
             options.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts)) {
            const qsizetype equals = word.indexOf(u'=');
            if (word.startsWith(QLatin1String("--")) && equals > 2)
                words << word.left(equals) << word.mid(equals + 1);
            else
                words << word;
        }
        return words;
    }

    // The value of `--name` among a service's options, the last one given as
    // its parser takes it; empty if not given.
    static QString option(const QStringList &words, const QString &name)
    {
        const qsizetype at = words.lastIndexOf(QStringLiteral("--") + name);
        return at >= 0 && at + 1 < words.size() ? words[at + 1] : QString();
    }

    // Where a service's --channel takes it; empty for the in-process simulator.
    static QUrl channelUrl(const QStringList &words)
    {
        const QString channel = option(words, QStringLiteral("channel"));
        if (channel == QLatin1String("alipay"))
            return words.contains(QStringLiteral("--alipay-gateway"))
                       ? QUrl(option(words, QStringLiteral("alipay-gateway")))
                       : AlipayChannelOptions{}.gateway;
        if (channel == QLatin1String("wechatpay"))
            return words.contains(QStringLiteral("--wechatpay-api"))
                       ? QUrl(option(words, QStringLiteral("wechatpay-api")))
                       : WechatPayChannelOptions{}.api;
        return channel.isEmpty() ? QUrl() : QUrl(channel);
    }

    // The hosts the services will call, each reached and its certificate
    // verified with that service's trust: its channel against its
    // --channel-ca-file (else its --ca-file), and, for the worker, which
    // sends them, where merchants' notifications go against its --ca-file.
    static QList<Finding> calls(const QList<Service> &services, const QString &dsn)
    {
        QList<Finding> found;
        QSet<QString> looked;
        for (const Service &service : services) {
            const bool plainHttp = service.words.contains(QStringLiteral("--allow-http"));
            HttpClient::allowPlainHttp(plainHttp);
            const QString caFile = option(service.words, QStringLiteral("ca-file"));
            if (!caFile.isEmpty())
                if (const QString refused = TlsSession::checkAuthority(caFile); !refused.isEmpty())
                    found << Finding{QStringLiteral("--ca-file %1").arg(caFile), {}, refused};
            const QUrl channel = channelUrl(service.words);
            const QString channelCa = option(service.words, QStringLiteral("channel-ca-file"));
            const QString authority = channelCa.isEmpty() ? caFile : channelCa;
            const QString key = channel.toString() + u' ' + authority + (plainHttp ? u'+' : u'-');
            if (!channel.isEmpty() && !looked.contains(key)) {
                looked.insert(key);
                found << checkCallTarget(QStringLiteral("--channel"), channel, authority,
                                         QStringLiteral("--channel-ca-file"), CallTimeoutMs);
            }
            if (service.variable == QLatin1String("KEEL_WORKER_OPTIONS"))
                found << workerCalls(dsn, caFile);
        }
        return found;
    }

    // The hosts only the worker calls, from the database: merchants'
    // notification URLs and sagas' participants, under the worker's --ca-file.
    static QList<Finding> workerCalls(const QString &dsn, const QString &caFile)
    {
        Result<ConnectionSettings> settings = ConnectionSettings::parse(dsn);
        Result<LibpqConnection> session =
            settings ? LibpqConnection::open(*settings) : Result<LibpqConnection>(settings.error());
        if (!session)
            return {}; // the database's own finding says why
        QList<Finding> found;
        found << targetCalls(notifyTargets(*session, MostCallTargets), QStringLiteral("notify_url"),
                             QStringLiteral("merchant"), caFile,
                             QStringLiteral("the worker cannot send this merchant's "
                                            "notifications until it is corrected"));
        found << targetCalls(participantTargets(*session, MostCallTargets),
                             QStringLiteral("saga participant"), QStringLiteral("saga"), caFile,
                             QStringLiteral("the worker cannot call this saga's participant"));
        return found;
    }

    static QList<Finding> targetCalls(const Result<CallTargets> &targets, const QString &named,
                                      const QString &owner, const QString &caFile,
                                      const QString &unusable)
    {
        if (!targets)
            return {{named + QStringLiteral(" URLs"), {}, targets.error().message}};
        QList<Finding> found;
        for (const QUrl &url : std::as_const(targets->origins))
            found << checkCallTarget(named, url, caFile, QStringLiteral("--ca-file"),
                                     CallTimeoutMs);
        for (const qint64 id : std::as_const(targets->unusable))
            found << Finding{QStringLiteral("%1 of %2 %3").arg(named, owner).arg(id),
                             {},
                             QStringLiteral("not a URL with a host: %1").arg(unusable)};
        return found;
    }

    static constexpr int CallTimeoutMs = 5000;
    static constexpr int MostCallTargets = 20;

    // Every node connected and logged in, the exchange declared as the relay
    // declares it: a cluster's node that is down is a finding of its own.
    static QList<Finding> brokers(const QString &urls, const QString &exchange)
    {
        QList<Finding> found;
        const QStringList nodes =
            urls.split(QRegularExpression(QStringLiteral("[\\s,]+")), Qt::SkipEmptyParts);
        for (const QString &url : nodes.isEmpty() ? QStringList{QString()} : nodes) {
            Result<AmqpAddress> address = AmqpAddress::parse(url);
            if (!address) {
                found << Finding{QStringLiteral("broker"), {}, address.error().message};
                continue;
            }
            AmqpPublisher publisher(*address, exchange);
            Status connected = publisher.connect(5000);
            found << Finding{QStringLiteral("broker"), connected ? address->redacted() : QString(),
                             connected ? QString() : connected.error().message};
        }
        return found;
    }
};

} // namespace

std::unique_ptr<Command> makeDoctorCommand()
{
    return std::make_unique<DoctorCommand>();
}

} // namespace keel::cli
