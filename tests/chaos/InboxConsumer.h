#pragma once

#include "core/db/ConnectionSettings.h"
#include "core/outbox/AmqpAddress.h"

#include <atomic>
#include <thread>

namespace keel::chaos {

// A downstream service reading keel's events from a durable queue bound to
// every routing key: it applies each one through an Inbox in keel's database
// and acks only after that committed, reconnecting to the database and the
// broker whenever one goes away. What it applied is in chaos.applied_events.
class InboxConsumer final {
public:
    // Given a cluster's nodes, it declares its queue a quorum queue (one
    // replica per node) and moves to the next node whenever one goes away.
    InboxConsumer(QList<AmqpAddress> nodes, QString exchange, ConnectionSettings database);
    ~InboxConsumer();

    // Declares the queue and its binding (so nothing published from now on
    // is returned unroutable), then consumes on a thread of its own.
    bool start();
    void stop();

    qint64 received() const { return m_received; }
    qint64 duplicates() const { return m_duplicates; }
    qint64 reconnects() const { return m_reconnects; }

private:
    void run();

    QList<AmqpAddress> m_nodes;
    qsizetype m_node = 0; // the node the next connection tries
    QString m_exchange;
    ConnectionSettings m_database;
    std::atomic<bool> m_stopping{false};
    std::atomic<qint64> m_received{0};
    std::atomic<qint64> m_duplicates{0};
    std::atomic<qint64> m_reconnects{0};
    std::thread m_thread;
};

} // namespace keel::chaos
