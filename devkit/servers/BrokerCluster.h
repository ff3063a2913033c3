#pragma once

#include "core/Result.h"
#include "core/outbox/AmqpAddress.h"

#include <QList>
#include <QString>

#include <memory>
#include <vector>

namespace keel {

class EmbeddedBroker;

// Three (or more) private RabbitMQ nodes on this machine formed into one
// cluster, each on its own ports and data directory: what the chaos suite
// kills nodes of to show that quorum queues and the relay lose nothing.
class BrokerCluster final {
public:
    // Starts the nodes one after another, each joining the first, and waits
    // until the first sees every one of them running.
    static Result<std::unique_ptr<BrokerCluster>> start(const QString &directory, int nodes = 3);
    ~BrokerCluster();
    Q_DISABLE_COPY_MOVE(BrokerCluster)

    int size() const { return int(m_nodes.size()); }
    EmbeddedBroker &node(int index) { return *m_nodes.at(size_t(index)); }
    QList<AmqpAddress> addresses() const;
    // How many nodes `index` sees running in its cluster, by rabbitmqctl.
    Result<int> runningNodes(int index) const;

private:
    BrokerCluster() = default;

    QString m_directory;
    int m_epmdPort = 0;
    QStringList m_names;
    std::vector<std::unique_ptr<EmbeddedBroker>> m_nodes;
};

} // namespace keel
