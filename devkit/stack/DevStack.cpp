#include "devkit/stack/DevStack.h"

#include "core/channel/AlipayChannel.h"
#include "core/channel/HttpChannel.h"
#include "core/channel/SimulatedChannel.h"
#include "core/channel/WechatPayChannel.h"

#include "core/db/LibpqConnection.h"
#include "core/db/Migrator.h"
#include "core/db/QtSqlConnections.h"
#include "core/merchant/MerchantStore.h"
#include "core/net/HttpClient.h"
#include "core/net/LoopbackPort.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QUrl>

#include <unistd.h>

namespace keel {
namespace {

Status migrate(const ConnectionSettings &settings, const DevStack::Progress &progress)
{
    Result<QList<Migration>> migrations = MigrationSource::load();
    if (!migrations)
        return migrations.error();
    Status result;
    {
        Result<QSqlDatabase> db = QtSqlConnections::connect(settings, QStringLiteral("keel-dev"));
        if (!db)
            return db.error();
        Result<int> applied =
            Migrator(*db, *migrations).migrate([&](const Migration &migration, qint64 ms) {
                if (progress)
                    progress(QStringLiteral("applied %1 (%2 ms)").arg(migration.label()).arg(ms));
            });
        if (!applied)
            result = applied.error();
    }
    QtSqlConnections::closeThreadConnections();
    return result;
}

// A login of keel's roles, made on first use. It reaches the server through
// the data directory's socket, which trusts local logins.
Result<ConnectionSettings> ensureLogin(const ConnectionSettings &superuser, const QString &name,
                                       const QStringList &roles)
{
    Result<LibpqConnection> admin = LibpqConnection::open(superuser);
    if (!admin)
        return admin.error();
    const QByteArray role = name.toLatin1();
    if (Status made = admin->exec("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE "
                                  "rolname = '" +
                                  role + "') THEN CREATE ROLE " + role + " LOGIN IN ROLE " +
                                  roles.join(QStringLiteral(", ")).toLatin1() + "; END IF; END $$");
        !made)
        return made.error();
    ConnectionSettings login = superuser;
    login.set(QStringLiteral("user"), name);
    return login;
}

} // namespace

QString DevStack::defaultDirectory()
{
    // root's home is closed to the unprivileged account the server runs as.
    if (::geteuid() == 0)
        return QStringLiteral("/var/lib/keel/dev");
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/keel/dev");
}

Result<std::unique_ptr<DevStack>> DevStack::start(Options options, const Progress &progress)
{
    // Everything the stack runs is on loopback over plain HTTP: the
    // simulator, the demo's participants and its merchant's webhook.
    HttpClient::allowPlainHttp(true);
    std::unique_ptr<DevStack> stack(new DevStack);
    Result<std::unique_ptr<EmbeddedCluster>> cluster = EmbeddedCluster::create(options.cluster);
    if (!cluster)
        return cluster.error();
    stack->m_cluster = std::move(cluster).value();
    Result<bool> initialized = stack->m_cluster->initialize();
    if (!initialized)
        return initialized.error();
    if (progress)
        progress(*initialized ? QStringLiteral("created a new cluster in %1")
                                    .arg(stack->m_cluster->dataDirectory())
                              : QStringLiteral("reusing the cluster in %1")
                                    .arg(stack->m_cluster->dataDirectory()));
    if (Status started = stack->m_cluster->start(); !started)
        return started.error();
    if (Status made = stack->m_cluster->ensureDatabase(QStringLiteral("keel")); !made)
        return made.error();
    if (Status migrated = migrate(stack->database(), progress); !migrated)
        return migrated.error();
    Result<QString> apiKey =
        stack->merchantKey(QStringLiteral("keel-demo.apikey"), QStringLiteral("Demo Merchant"), {});
    if (!apiKey)
        return apiKey.error();
    stack->m_apiKey = *apiKey;
    // The services log in as production runs them: a keel_gateway member,
    // never the superuser.
    Result<ConnectionSettings> service = ensureLogin(
        stack->database(), QStringLiteral("keel_service"), {QStringLiteral("keel_gateway")});
    if (!service)
        return service.error();
    stack->m_service = *service;
    options.gateway.settings = stack->m_service;
    const int simulatorPort = options.channelSimulator ? bindLoopback() : 0;
    std::optional<RsaKey> simulatorKey;
    if (options.channelSimulator) {
        Result<RsaKey> key = stack->prepareChannelSimulator(options, simulatorPort);
        if (!key)
            return key.error();
        simulatorKey = *key;
    }
    if (!options.gateway.channel)
        options.gateway.channel = simulatedChannel();
    Result<std::unique_ptr<GatewayRuntime>> gateway = GatewayRuntime::start(options.gateway);
    if (!gateway)
        return gateway.error();
    stack->m_gateway = std::move(gateway).value();
    if (simulatorKey) {
        if (Status simulating = stack->startChannelSimulator(*options.channelSimulator,
                                                             *simulatorKey, simulatorPort);
            !simulating)
            return simulating.error();
        if (progress)
            progress(QStringLiteral("channel simulator on %1, notifying the gateway")
                         .arg(stack->m_channelSimulator->url()));
    }
    WorkerOptions worker;
    worker.settings = stack->m_service;
    worker.channel = options.gateway.channel;
    worker.idempotency = options.gateway.idempotency;
    worker.saga = options.worker;
    worker.notifications = options.notifications;
    Result<std::unique_ptr<WorkerRuntime>> started = WorkerRuntime::start(worker);
    if (!started)
        return started.error();
    stack->m_worker = std::move(started).value();
    if (Status relayed = stack->startRelay(options, progress); !relayed)
        return relayed.error();
    return stack;
}

Status DevStack::startRelay(const Options &options, const Progress &progress)
{
    if (!EmbeddedBroker::available()) {
        if (progress)
            progress(QStringLiteral("rabbitmq-server is not installed: running without a "
                                    "broker; the outbox is not published"));
        return {};
    }
    Result<std::unique_ptr<EmbeddedBroker>> broker = EmbeddedBroker::start(
        QDir(m_cluster->dataDirectory()).filePath(QStringLiteral("rabbitmq")));
    if (!broker)
        return broker.error();
    m_broker = std::move(broker).value();
    RelayRuntimeOptions relay;
    relay.settings = m_service;
    relay.relay.broker = m_broker->address();
    relay.relay.maxAttempts = options.relayMaxAttempts;
    relay.catchAllQueue = QStringLiteral("keel.events.all");
    relay.catchAllBindings = options.eventBindings;
    Result<std::unique_ptr<RelayRuntime>> runtime = RelayRuntime::start(relay);
    if (!runtime)
        return runtime.error();
    m_relay = std::move(runtime).value();
    return {};
}

void DevStack::maintain()
{
    if (m_gateway)
        m_gateway->maintain();
    if (m_worker)
        m_worker->maintain();
    if (m_relay)
        m_relay->maintain();
}

DevStack::~DevStack()
{
    (void)stop();
}

Result<ChannelFactory> DevStack::alipayThrough(int port, const RsaKey &alipayKey)
{
    Result<RsaKey> appKey = RsaKey::generate();
    if (!appKey)
        return appKey.error();
    AlipayChannelOptions alipay;
    alipay.gateway = QUrl(QStringLiteral("http://127.0.0.1:%1/gateway.do").arg(port));
    alipay.appId = QStringLiteral("2021000000000001");
    alipay.appPrivateKey = *appKey;
    alipay.alipayPublicKey = alipayKey;
    alipay.timeoutMs = 5000;
    // The private halves verify as well as sign: each side keeps its own.
    m_alipayGateway = AlipayGatewayOptions{alipay.appId, *appKey, alipayKey};
    return alipayChannel(std::move(alipay));
}

Result<ChannelFactory> DevStack::wechatpayThrough(int port)
{
    Result<RsaKey> merchantKey = RsaKey::generateCertified();
    Result<RsaKey> platformKey = RsaKey::generateCertified();
    if (!merchantKey || !platformKey)
        return (merchantKey ? platformKey : merchantKey).error();
    WechatPayChannelOptions wechatpay;
    wechatpay.api = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port));
    wechatpay.mchid = QStringLiteral("1900000001");
    wechatpay.appid = QStringLiteral("wx0000000000000001");
    wechatpay.merchantKey = *merchantKey;
    wechatpay.merchantSerial = merchantKey->certificateSerial().toLatin1();
    wechatpay.platformCertificates = {*platformKey};
    wechatpay.timeoutMs = 5000;
    // The private halves verify as well as sign: each side keeps its own.
    m_wechatpayGateway = WechatPayGatewayOptions{wechatpay.mchid, *merchantKey, *platformKey,
                                                 platformKey->certificateSerial().toLatin1()};
    return wechatpayChannel(std::move(wechatpay));
}

Result<RsaKey> DevStack::prepareChannelSimulator(Options &options, int port)
{
    if (port == 0)
        return makeError(ErrorKind::Environment,
                         QStringLiteral("no free loopback port for the channel simulator"));
    Result<RsaKey> key = RsaKey::generate();
    if (!key)
        return key.error();
    Result<ChannelFactory> channel =
        options.simulatorProtocol == SimulatorProtocol::Alipay ? alipayThrough(port, *key)
        : options.simulatorProtocol == SimulatorProtocol::WechatPay
            ? wechatpayThrough(port)
            : httpChannel(QStringLiteral("http://127.0.0.1:%1").arg(port), 5000);
    if (!channel)
        return channel.error();
    options.gateway.channel = *channel;
    ChannelKeys keys = options.gateway.channelKeys ? *options.gateway.channelKeys : ChannelKeys();
    keys.alipayPublicKey =
        *key; // its public half verifies; the private half stays with the simulator
    options.gateway.channelKeys = std::make_shared<const ChannelKeys>(keys);
    return key;
}

Status DevStack::startChannelSimulator(const SimulatedChannelConfig &behaviour, const RsaKey &key,
                                       int port)
{
    ChannelSimulatorOptions simulator;
    simulator.settings = database();
    simulator.settings.set(QStringLiteral("application_name"), QStringLiteral("keel-channel-sim"));
    simulator.behaviour = behaviour;
    simulator.http.port = port;
    simulator.http.threads = 4;
    // Results come back as Alipay's notifications, except to a gateway that
    // calls the simulator as WeChat Pay (whose notifications it does not send).
    if (!m_wechatpayGateway) {
        AlipayNotifierOptions notifier;
        notifier.url = m_gateway->url() + QStringLiteral("/v1/channels/alipay/notify");
        notifier.signingKey = key;
        simulator.notifier = notifier;
    }
    simulator.alipayGateway = m_alipayGateway;
    simulator.wechatpayGateway = m_wechatpayGateway;
    Result<std::unique_ptr<ChannelSimulator>> started = ChannelSimulator::start(simulator);
    if (!started)
        return started.error();
    m_channelSimulator = std::move(started).value();
    return {};
}

Status DevStack::stop()
{
    if (m_relay) {
        m_relay->stop();
        m_relay.reset();
    }
    if (m_broker) {
        (void)m_broker->stop();
        m_broker.reset();
    }
    if (m_worker) {
        m_worker->stop();
        m_worker.reset();
    }
    if (m_gateway) {
        m_gateway->stop();
        m_gateway.reset();
    }
    if (m_channelSimulator) {
        m_channelSimulator->stop();
        m_channelSimulator.reset();
    }
    return m_cluster ? m_cluster->stop() : Status();
}

Result<QString> DevStack::deadWebhookMerchantKey()
{
    // A port bound a moment ago and let go: nothing listens there, so every
    // POST is refused at once.
    const int port = bindLoopback();
    return merchantKey(QStringLiteral("keel-demo-dead-webhook.apikey"),
                       QStringLiteral("Webhook Down Ltd"),
                       QStringLiteral("http://127.0.0.1:%1/webhooks/keel").arg(port));
}

Result<QString> DevStack::merchantKey(const QString &fileName, const QString &name,
                                      const QString &notifyUrl)
{
    const QString path = QDir(m_cluster->dataDirectory()).filePath(fileName);
    QFile file(path);
    if (file.open(QIODevice::ReadOnly)) {
        const QString key = QString::fromLatin1(file.readAll()).trimmed();
        if (!key.isEmpty())
            return key;
    }
    Result<LibpqConnection> session = LibpqConnection::open(database());
    if (!session)
        return session.error();
    Result<IssuedMerchant> issued = MerchantStore(*session).create(name, notifyUrl);
    if (!issued)
        return issued.error();
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return makeError(ErrorKind::Environment,
                         QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(issued->apiKey.toLatin1() + '\n');
    return issued->apiKey;
}

Result<ConnectionSettings> DevStack::personLogin(const QString &name, const QStringList &roles)
{
    return ensureLogin(database(), name, roles);
}

} // namespace keel
