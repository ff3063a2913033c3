#pragma once

#include "KeelService.h"

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"
#include "core/outbox/AmqpAddress.h"

#include <QByteArray>
#include <QStringList>

#include <memory>
#include <vector>

namespace keel {
class BrokerCluster;
class EmbeddedBroker;
class LibpqConnection;
class EmbeddedCluster;
namespace test {
class HaFormation;
class TestParticipant;
} // namespace test
} // namespace keel

namespace keel::chaos {

// Everything a chaos run runs on, in a directory of its own: a durable
// PostgreSQL (one server, or a pg_auto_failover or Patroni formation), RabbitMQ (a node, or a
// cluster of three), the saga participants and a merchant's notify endpoint (one local HTTP
// server), and the keel processes — a channel simulator, two gateways, a saga worker and two
// relays.

// How keel calls the channel in a run: keel's own wire to the simulator, or
// the simulator speaking a real channel's protocol through keel's adapter.
enum class ChannelProtocol { Keel, Alipay, WechatPay };

// The channel keel's records name under each (recon_channels).
QString statementChannel(ChannelProtocol protocol);

// What a run's world is made of.
struct WorldShape {
    bool highlyAvailable = false; // the database is an HA formation, failed over under load
    bool patroni = false;         // that formation is Patroni on etcd, not pg_auto_failover
    ChannelProtocol protocol = ChannelProtocol::Keel;
    bool brokerCluster = false; // RabbitMQ is three clustered nodes, not one
    bool readReplica = false;   // with patroni: one more member, a read replica
};

class ChaosWorld final {
public:
    static Result<std::unique_ptr<ChaosWorld>> start(const QString &directory,
                                                     const WorldShape &shape);
    ~ChaosWorld();

    ConnectionSettings settings() const { return m_settings; }
    // The keel processes' own login, password included, for the end checks
    // that act as a service does (reconciliation).
    ConnectionSettings serviceSettings() const;
    // The single server's immediate shutdown and start (not with failover).
    Status stopDatabase();
    Status startDatabase();
    test::HaFormation *failover() { return m_failover.get(); }
    // The broker's nodes: one, or a cluster's three.
    int brokerNodes() const;
    EmbeddedBroker &brokerNode(int index);
    QList<AmqpAddress> brokerAddresses() const;
    test::TestParticipant &participant() { return *m_participant; }
    QString participantUrl() const;
    QStringList gatewayUrls() const { return m_gatewayUrls; }
    QByteArray paymentsKey() const { return m_paymentsKey; }
    QByteArray sagasKey() const { return m_sagasKey; }
    // A third merchant's, for `keel simulate`'s traffic beside the recorded load.
    QByteArray simulateKey() const { return m_simulateKey; }
    QString exchange() const { return QStringLiteral("keel.events"); }
    QString directory() const { return m_directory; }
    // Secrets the run handed out: none may appear in any artefact.
    QList<QByteArray> secrets() const { return m_secrets; }

    QStringList processNames() const;
    KeelService *process(const QString &name);
    // Starts every keel process that is not running; false if one would not.
    bool startStopped();

private:
    ChaosWorld() = default;
    Status startServers(const WorldShape &shape);
    Status startSingleServer();
    Status prepareDatabase();
    Status createProcessLogin(LibpqConnection &connection);
    void defineProcesses(ChannelProtocol protocol);
    static QStringList alipayArguments(const QString &channel, QStringList &simulator);
    static QStringList wechatpayArguments(const QString &channel, QStringList &simulator);

    QString m_directory;
    std::unique_ptr<EmbeddedCluster> m_database;
    std::unique_ptr<test::HaFormation> m_failover;
    std::unique_ptr<EmbeddedBroker> m_broker;
    std::unique_ptr<BrokerCluster> m_brokerCluster;
    std::unique_ptr<test::TestParticipant> m_participant;
    ConnectionSettings m_settings;        // superuser, for the set-up and the checks
    ConnectionSettings m_processSettings; // what the keel processes log in with
    QStringList m_gatewayUrls;
    QByteArray m_paymentsKey;
    QByteArray m_sagasKey;
    QByteArray m_simulateKey;
    QList<QByteArray> m_secrets;
    QString m_processPassword;
    std::vector<std::unique_ptr<KeelService>> m_processes;
};

} // namespace keel::chaos
