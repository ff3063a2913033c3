#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"
#include "core/runtime/GatewayRuntime.h"
#include "core/runtime/RelayRuntime.h"
#include "core/runtime/WorkerRuntime.h"
#include "devkit/servers/EmbeddedBroker.h"
#include "devkit/servers/EmbeddedCluster.h"
#include "devkit/sim/ChannelSimulator.h"

#include <functional>
#include <memory>

namespace keel {

// What the development stack's channel simulator speaks to keel.
enum class SimulatorProtocol { Keel, Alipay, WechatPay };

// The embedded default: a private PostgreSQL with keel's schema, a demo
// merchant, the gateway, a saga worker and (with rabbitmq-server installed) a
// private RabbitMQ node with the outbox relay, in this process. `keel dev` and
// `keel-console --demo` both run it.
class DevStack final {
public:
    struct Options {
        ClusterOptions cluster;
        GatewayOptions gateway; // settings are filled in by start()
        SagaWorkerOptions worker;
        // Set: the simulated acquirer runs behind HTTP (ChannelSimulator) with
        // a key of its own, the gateway and worker reach it as a remote
        // channel, and it sends its results to the gateway's Alipay endpoint,
        // so the dev stack and the demo take the inbound path for real.
        // gateway.channel is then chosen by start().
        std::optional<SimulatedChannelConfig> channelSimulator;
        // With channelSimulator: the protocol the simulator speaks. Alipay's
        // OpenAPI or WeChat Pay API v3 are called through keel's adapter for
        // it, with keys made for this run (the demo's traffic is then in yuan).
        SimulatorProtocol simulatorProtocol = SimulatorProtocol::Keel;
        // The worker's merchant notifications (the demo shortens the retries).
        NotificationOptions notifications;
        // The routing keys the dev queue (keel.events.all) is bound to; an
        // event no binding takes is returned, retried and after
        // relayMaxAttempts parked, as with a production subscriber missing.
        QStringList eventBindings{QStringLiteral("#")};
        int relayMaxAttempts = RelayOptions().maxAttempts;
    };
    using Progress = std::function<void(const QString &)>;

    static Result<std::unique_ptr<DevStack>> start(Options options, const Progress &progress = {});
    ~DevStack();
    Q_DISABLE_COPY_MOVE(DevStack)

    ConnectionSettings database() const { return m_cluster->settings(QStringLiteral("keel")); }
    // What the gateway, worker and relay log in as: a keel_gateway member.
    ConnectionSettings serviceLogin() const { return m_service; }
    // A person's login (`name`, lower case) holding `roles` (keel_operator,
    // ...), made on first use: the demo's people act as deployments have them act.
    Result<ConnectionSettings> personLogin(const QString &name, const QStringList &roles);
    QString gatewayUrl() const { return m_gateway->url(); }
    // The private RabbitMQ node the relay publishes to; empty without
    // rabbitmq-server.
    QString amqpUrl() const { return m_broker ? m_broker->address().url() : QString(); }
    QString apiKey() const { return m_apiKey; }
    // Whether the channel is the simulator speaking Alipay or WeChat Pay (yuan only).
    bool yuanOnly() const { return m_alipayGateway || m_wechatpayGateway; }
    // The channel keel's records name: sim, or the one the simulator speaks as.
    QString statementChannel() const
    {
        return m_alipayGateway      ? QStringLiteral("alipay")
               : m_wechatpayGateway ? QStringLiteral("wechatpay")
                                    : QStringLiteral("sim");
    }
    // The API key of a second merchant whose notify URL nothing answers, so
    // its notifications fail, retry and park as a real broken endpoint's do
    // (the demo's Outbox view has something to resend). Issued on first use.
    Result<QString> deadWebhookMerchantKey();
    EmbeddedCluster &cluster() { return *m_cluster; }
    GatewayRuntime &gateway() { return *m_gateway; }
    WorkerRuntime &worker() { return *m_worker; }
    // The gateway's and the worker's housekeeping; call every few seconds.
    void maintain();

    // Stops the worker and the gateway, then the server.
    Status stop();

    static QString defaultDirectory();

private:
    DevStack() = default;
    // A merchant's API key kept (mode 0600) in the data directory under
    // `fileName`, issuing the merchant on first use.
    Result<QString> merchantKey(const QString &fileName, const QString &name,
                                const QString &notifyUrl);
    Status startRelay(const Options &options, const Progress &progress);
    // Chooses the HTTP channel and the key the gateway trusts; the simulator
    // itself starts once the gateway's URL is known.
    Result<RsaKey> prepareChannelSimulator(Options &options, int port);
    // Alipay mode: AlipayChannel to the simulator at `port`, with an app key
    // made for this run.
    Result<ChannelFactory> alipayThrough(int port, const RsaKey &alipayKey);
    // WeChat Pay mode: WechatPayChannel to the simulator at `port`, with a
    // merchant key and a platform key made for this run.
    Result<ChannelFactory> wechatpayThrough(int port);
    Status startChannelSimulator(const SimulatedChannelConfig &behaviour, const RsaKey &key,
                                 int port);

    std::unique_ptr<EmbeddedCluster> m_cluster;
    std::unique_ptr<ChannelSimulator> m_channelSimulator;
    std::optional<AlipayGatewayOptions> m_alipayGateway; // the simulator's side of Alipay mode
    std::optional<WechatPayGatewayOptions> m_wechatpayGateway; // ... and of WeChat Pay mode
    std::unique_ptr<GatewayRuntime> m_gateway;
    std::unique_ptr<WorkerRuntime> m_worker;
    std::unique_ptr<EmbeddedBroker> m_broker;
    std::unique_ptr<RelayRuntime> m_relay;
    ConnectionSettings m_service;
    QString m_apiKey;
};

} // namespace keel
