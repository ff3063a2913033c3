#include "ChaosWorld.h"

#include "FailoverCluster.h"
#include "KeelProcess.h"
#include "PatroniCluster.h"
#include "ServerAccountAccess.h"
#include "SigningFiles.h"
#include "TestParticipant.h"

#include "core/db/LibpqConnection.h"
#include "core/merchant/MerchantStore.h"
#include "core/net/LoopbackPort.h"
#include "devkit/servers/BrokerCluster.h"
#include "devkit/servers/EmbeddedBroker.h"
#include "devkit/servers/EmbeddedCluster.h"

#include <QDir>
#include <QRandomGenerator>

namespace keel::chaos {
namespace {

// Test instrumentation, not keel: a record of every outbox row that
// committed (the relay sweeps published rows, so the table alone cannot say
// what should have arrived), and what the inbox consumer applied.
constexpr const char *InstrumentationSql = R"(
CREATE SCHEMA chaos;
CREATE TABLE chaos.committed_events (outbox_id bigint PRIMARY KEY, routing_key text NOT NULL);
CREATE TABLE chaos.applied_events (message_id text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
CREATE FUNCTION chaos.remember_event() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
SET search_path = chaos, pg_temp AS $$
BEGIN
    INSERT INTO chaos.committed_events VALUES (NEW.id, NEW.aggregate_type || '.' || NEW.event_type);
    RETURN NEW;
END $$;
CREATE TRIGGER chaos_remember_event AFTER INSERT ON keel.outbox
    FOR EACH ROW EXECUTE FUNCTION chaos.remember_event();
)";

} // namespace

Result<std::unique_ptr<ChaosWorld>> ChaosWorld::start(const QString &directory,
                                                      const WorldShape &shape)
{
    std::unique_ptr<ChaosWorld> world(new ChaosWorld);
    world->m_directory = directory;
    if (Status started = world->startServers(shape); !started)
        return started.error();
    if (Status prepared = world->prepareDatabase(); !prepared)
        return prepared.error();
    world->defineProcesses(shape.protocol);
    if (!world->startStopped())
        return makeError(
            ErrorKind::Environment,
            QStringLiteral("the keel processes did not start; see the logs in %1").arg(directory));
    return world;
}

ChaosWorld::~ChaosWorld()
{
    m_processes.clear();
    m_participant.reset();
    if (m_broker)
        (void)m_broker->stop();
    m_brokerCluster.reset();
    if (m_database)
        (void)m_database->stop();
    m_failover.reset();
}

Status ChaosWorld::stopDatabase()
{
    return m_database ? m_database->stopImmediately() : Status();
}

Status ChaosWorld::startDatabase()
{
    return m_database ? m_database->start() : Status();
}

int ChaosWorld::brokerNodes() const
{
    return m_brokerCluster ? m_brokerCluster->size() : 1;
}

EmbeddedBroker &ChaosWorld::brokerNode(int index)
{
    return m_brokerCluster ? m_brokerCluster->node(index) : *m_broker;
}

QList<AmqpAddress> ChaosWorld::brokerAddresses() const
{
    return m_brokerCluster ? m_brokerCluster->addresses() : QList{m_broker->address()};
}

Status ChaosWorld::startServers(const WorldShape &shape)
{
    test::letServerAccountThrough(m_directory);
    if (shape.highlyAvailable && shape.patroni) {
        auto formation = test::PatroniCluster::start(m_directory, shape.readReplica);
        if (!formation)
            return formation.error();
        m_failover = std::move(formation).value();
        m_settings = m_failover->settings(QStringLiteral("keel"));
    } else if (shape.highlyAvailable) {
        auto formation = test::FailoverCluster::start(m_directory);
        if (!formation)
            return formation.error();
        m_failover = std::move(formation).value();
        m_settings = m_failover->settings(QStringLiteral("keel"));
    } else if (Status started = startSingleServer(); !started) {
        return started;
    }
    const QString brokerDirectory = QDir(m_directory).filePath(QStringLiteral("rabbitmq"));
    if (shape.brokerCluster) {
        auto cluster = BrokerCluster::start(brokerDirectory);
        if (!cluster)
            return cluster.error();
        m_brokerCluster = std::move(cluster).value();
    } else {
        auto broker = EmbeddedBroker::start(brokerDirectory);
        if (!broker)
            return broker.error();
        m_broker = std::move(broker).value();
    }
    m_participant = std::make_unique<test::TestParticipant>();
    return {};
}

Status ChaosWorld::startSingleServer()
{
    auto cluster =
        EmbeddedCluster::create({QDir(m_directory).filePath(QStringLiteral("pg")), 0, true});
    if (!cluster)
        return cluster.error();
    m_database = std::move(cluster).value();
    if (Result<bool> initialized = m_database->initialize(); !initialized)
        return initialized.error();
    if (Status started = m_database->start(); !started)
        return started;
    if (Status created = m_database->ensureDatabase(QStringLiteral("keel")); !created)
        return created;
    m_settings = m_database->settings(QStringLiteral("keel"));
    return {};
}

Status ChaosWorld::prepareDatabase()
{
    const test::ProcessResult migrated =
        test::runKeel({QStringLiteral("migrate"), QStringLiteral("--db"), m_settings.conninfo()});
    if (migrated.exitCode != 0)
        return makeError(ErrorKind::Failed, QStringLiteral("keel migrate: ") + migrated.err);
    Result<LibpqConnection> connection = LibpqConnection::open(m_settings);
    if (!connection)
        return connection.error();
    if (Status instrumented = connection->exec(InstrumentationSql); !instrumented)
        return instrumented;
    MerchantStore merchants(*connection);
    auto payments =
        merchants.create(QStringLiteral("Chaos payments"), m_participant->url("/merchant-notify"));
    auto sagas = merchants.create(QStringLiteral("Chaos orders"), {});
    auto simulated = merchants.create(QStringLiteral("Chaos simulate"), {});
    if (!payments || !sagas || !simulated)
        return !payments ? payments.error() : !sagas ? sagas.error() : simulated.error();
    m_paymentsKey = payments->apiKey.toLatin1();
    m_sagasKey = sagas->apiKey.toLatin1();
    m_simulateKey = simulated->apiKey.toLatin1();
    m_secrets = {m_paymentsKey,
                 m_sagasKey,
                 m_simulateKey,
                 payments->webhookSecret.toLatin1(),
                 sagas->webhookSecret.toLatin1(),
                 simulated->webhookSecret.toLatin1()};
    return createProcessLogin(*connection);
}

// The keel processes log in as a gateway role with a password, over TCP, as
// in production: the password is one more secret no artefact may show.
Status ChaosWorld::createProcessLogin(LibpqConnection &connection)
{
    const QByteArray password = QByteArray::number(QRandomGenerator::system()->generate64(), 36) +
                                QByteArray::number(QRandomGenerator::system()->generate64(), 36);
    if (Status created = connection.exec("CREATE ROLE chaos_keel LOGIN IN ROLE keel_gateway "
                                         "PASSWORD '" +
                                         password + "'");
        !created)
        return created;
    m_processSettings = m_settings;
    if (!m_failover) { // the single server: its loopback port, where passwords are checked
        m_processSettings.set(QStringLiteral("host"), QStringLiteral("127.0.0.1"));
        m_processSettings.set(QStringLiteral("port"), QString::number(m_database->port()));
    }
    m_processSettings.set(QStringLiteral("user"), QStringLiteral("chaos_keel"));
    m_processPassword = QString::fromLatin1(password); // through PGPASSWORD, see defineProcesses
    m_secrets << password;
    return {};
}

ConnectionSettings ChaosWorld::serviceSettings() const
{
    ConnectionSettings settings = m_processSettings;
    settings.set(QStringLiteral("password"), m_processPassword);
    return settings;
}

QString statementChannel(ChannelProtocol protocol)
{
    switch (protocol) {
    case ChannelProtocol::Alipay:
        return QStringLiteral("alipay");
    case ChannelProtocol::WechatPay:
        return QStringLiteral("wechatpay");
    case ChannelProtocol::Keel:
        break;
    }
    return QStringLiteral("sim");
}

// The simulator's payment codes never expire, but no payment request
// outlives the killed process that sent it: a short lifetime lets the run
// settle within its recovery.
QStringList ChaosWorld::alipayArguments(const QString &channel, QStringList &simulator)
{
    using test::signingFile;
    const QString appId = QStringLiteral("2021000000000042");
    simulator << QStringLiteral("--protocol") << QStringLiteral("alipay")
              << QStringLiteral("--alipay-app-id") << appId
              << QStringLiteral("--alipay-app-public-key") << signingFile("alipay-app.pub")
              << QStringLiteral("--alipay-private-key") << signingFile("alipay.key");
    return {QStringLiteral("--alipay-app-id"),
            appId,
            QStringLiteral("--alipay-app-key"),
            signingFile("alipay-app.key"),
            QStringLiteral("--alipay-public-key"),
            signingFile("alipay.pub"),
            QStringLiteral("--alipay-gateway"),
            channel + QStringLiteral("/gateway.do"),
            QStringLiteral("--alipay-payment-code-lifetime"),
            QStringLiteral("60")};
}

QStringList ChaosWorld::wechatpayArguments(const QString &channel, QStringList &simulator)
{
    using test::signingFile;
    const QString mchid = QStringLiteral("1900000001");
    simulator << QStringLiteral("--protocol") << QStringLiteral("wechatpay")
              << QStringLiteral("--wechatpay-mchid") << mchid
              << QStringLiteral("--wechatpay-merchant-certificate")
              << signingFile("wechatpay-merchant.crt") << QStringLiteral("--wechatpay-platform-key")
              << signingFile("wechatpay.key") << QStringLiteral("--wechatpay-platform-certificate")
              << signingFile("wechatpay.crt");
    return {QStringLiteral("--wechatpay-mchid"),
            mchid,
            QStringLiteral("--wechatpay-appid"),
            QStringLiteral("wx0000000000000001"),
            QStringLiteral("--wechatpay-merchant-key"),
            signingFile("wechatpay-merchant.key"),
            QStringLiteral("--wechatpay-merchant-certificate"),
            signingFile("wechatpay-merchant.crt"),
            QStringLiteral("--wechatpay-certificate"),
            signingFile("wechatpay.crt"),
            QStringLiteral("--wechatpay-api"),
            channel,
            QStringLiteral("--wechatpay-payment-code-lifetime"),
            QStringLiteral("60")};
}

void ChaosWorld::defineProcesses(ChannelProtocol protocol)
{
    const QString db = m_processSettings.conninfo();
    const QString channel = QStringLiteral("http://127.0.0.1:%1").arg(bindLoopback());
    const auto add = [&](const QString &name, QStringList arguments, const char *ready) {
        m_processes.push_back(std::make_unique<KeelService>(
            name, std::move(arguments), QLatin1String(ready),
            QDir(m_directory).filePath(name + QStringLiteral(".log"))));
        // As an operator would run keel: the password in libpq's
        // environment, not in the DSN on the command line.
        m_processes.back()->setEnvironment(QStringLiteral("PGPASSWORD"), m_processPassword);
    };
    QStringList simulator{QStringLiteral("channel-sim"),
                          QStringLiteral("--db"),
                          db,
                          QStringLiteral("--listen"),
                          channel.mid(7),
                          QStringLiteral("--sim-ambiguous-rate"),
                          QStringLiteral("0.05"),
                          QStringLiteral("--sim-latency"),
                          QStringLiteral("3")};
    // The participants and the merchant's notify endpoint listen on loopback over plain HTTP.
    QStringList channelClient{QStringLiteral("--channel"),         channel,
                              QStringLiteral("--channel-timeout"), QStringLiteral("2000"),
                              QStringLiteral("--lock-timeout"),    QStringLiteral("2000"),
                              QStringLiteral("--allow-http")};
    if (protocol != ChannelProtocol::Keel) {
        channelClient[1] = statementChannel(protocol);
        channelClient << (protocol == ChannelProtocol::Alipay
                              ? alipayArguments(channel, simulator)
                              : wechatpayArguments(channel, simulator));
    }
    add(QStringLiteral("channel-sim"), simulator, "KEEL_CHANNEL");
    for (int i = 1; i <= 2; ++i) {
        const QString listen = QStringLiteral("127.0.0.1:%1").arg(bindLoopback());
        m_gatewayUrls << QStringLiteral("http://") + listen;
        add(QStringLiteral("gateway-%1").arg(i),
            QStringList{QStringLiteral("gateway"), QStringLiteral("--db"), db,
                        QStringLiteral("--listen"), listen, QStringLiteral("--threads"),
                        QStringLiteral("4"), QStringLiteral("--reconcile-after"),
                        QStringLiteral("2")} +
                channelClient,
            "KEEL_HTTP");
    }
    add(QStringLiteral("worker-1"),
        QStringList{QStringLiteral("worker"), QStringLiteral("--db"), db, QStringLiteral("--poll"),
                    QStringLiteral("200"), QStringLiteral("--lease"), QStringLiteral("2000"),
                    QStringLiteral("--notify-schedule"), QStringLiteral("1,1,2,3")} +
            channelClient,
        "KEEL_WORKER");
    for (int i = 1; i <= 2; ++i) {
        add(QStringLiteral("relay-%1").arg(i),
            {QStringLiteral("relay"), QStringLiteral("--db"), db, QStringLiteral("--poll"),
             QStringLiteral("200"), QStringLiteral("--batch"), QStringLiteral("50")},
            "KEEL_RELAY");
        // The broker's credentials, like the database's, stay off the command line.
        // Each relay starts on a node of its own, and knows them all.
        QStringList nodes;
        const QList<AmqpAddress> addresses = brokerAddresses();
        for (qsizetype n = 0; n < addresses.size(); ++n)
            nodes.append(addresses[(n + i - 1) % addresses.size()].url());
        m_processes.back()->setEnvironment(QStringLiteral("KEEL_AMQP"), nodes.join(u' '));
    }
}

QString ChaosWorld::participantUrl() const
{
    return m_participant->url("");
}

QStringList ChaosWorld::processNames() const
{
    QStringList names;
    for (const auto &process : m_processes)
        names << process->name();
    return names;
}

KeelService *ChaosWorld::process(const QString &name)
{
    for (const auto &process : m_processes)
        if (process->name() == name)
            return process.get();
    return nullptr;
}

bool ChaosWorld::startStopped()
{
    bool all = true;
    for (const auto &process : m_processes)
        if (!process->running())
            all = process->start() && all;
    return all;
}

} // namespace keel::chaos
