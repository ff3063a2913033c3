#pragma once

#include "core/Result.h"
#include "core/outbox/AmqpAddress.h"

#include <QString>
#include <QStringList>

#include <memory>

class QProcess;

namespace keel {

// A private RabbitMQ node from Debian's rabbitmq-server: its own node name,
// ports (AMQP, distribution, epmd) and data directory, so it never meets a
// system broker or another test's. For tests, `keel dev` and the demo.
class EmbeddedBroker final {
public:
    // Whether rabbitmq-server is installed here.
    static bool available();
    // Starts a node keeping its data in `directory` and waits until it takes
    // logins (guest/guest on 127.0.0.1). `port` 0 picks a free one.
    static Result<std::unique_ptr<EmbeddedBroker>> start(const QString &directory, int port = 0);

    // A node of a cluster on this machine: the nodes share one epmd and one
    // Erlang cookie, and a blank node joins the first of `peers` it reaches
    // as it boots (classic peer discovery). BrokerCluster starts them.
    struct Membership {
        QString node; // name@localhost
        int epmdPort = 0;
        QByteArray cookie;
        QStringList peers;
    };
    static Result<std::unique_ptr<EmbeddedBroker>> startMember(const QString &directory,
                                                               const Membership &membership);
    // The same node started to outlive this process (a test run's fixture);
    // stopDirectory() stops it later, from any process.
    static Result<AmqpAddress> startDetached(const QString &directory);
    static Status stopDirectory(const QString &directory);
    // Stops the epmd on `port` once no node is registered with it (it
    // refuses before): a cluster's, when its nodes are gone.
    static void stopEpmdOn(int port);
    ~EmbeddedBroker();
    Q_DISABLE_COPY_MOVE(EmbeddedBroker)

    AmqpAddress address() const;
    // Stops the node (and its epmd); start() again on the same directory
    // keeps its queues and persistent messages.
    Status stop();
    // Kills the node at once, as a crash would.
    void kill();
    // Starts the node again on the same ports and directory.
    Status restart();

    // The same in steps that return at once, for a caller that must not be
    // held while an Erlang node shuts down or boots (the chaos suite's fault
    // loop): beginStop() sends the stop; beginStart() answers false while the
    // old node is still going, else starts it; ready() answers whether it
    // takes logins yet, an error if it exited.
    void beginStop();
    Result<bool> beginStart();
    Result<bool> ready();

private:
    EmbeddedBroker() = default;
    Status prepare(const QString &directory, int port);
    Status writeConfig(const QString &path) const;
    void stopOwnEpmd() const;
    enum class Wait { UntilReady, No };
    Status launch(bool detached = false, Wait wait = Wait::UntilReady);
    Status waitUntilReady(int timeoutMs);

    QString m_directory;
    QString m_node;
    int m_port = 0;
    int m_distPort = 0;
    int m_epmdPort = 0;
    Membership m_membership; // empty for a node of its own
    std::unique_ptr<QProcess> m_process;
};

} // namespace keel
