#pragma once

#include "core/Result.h"
#include "core/outbox/AmqpAddress.h"
#include "core/outbox/AmqpPublisher.h"

#include <QList>
#include <QString>

#include <optional>

namespace keel {

class LibpqConnection;

struct RelayOptions {
    AmqpAddress broker;
    QList<AmqpAddress> otherNodes; // the broker's cluster: tried when it cannot be reached
    QString exchange = QStringLiteral("keel.events");
    int batch = 200;             // rows per confirm window
    int maxAttempts = 10;        // a row refused this often is parked
    int confirmTimeoutMs = 5000; // a window's confirms must arrive within this
};

struct RelayPass {
    int published = 0;
    int failed = 0;                  // refused by the broker (returned, nacked); tried again later
    int parked = 0;                  // refused maxAttempts times: set aside, counted, visible
    std::optional<Error> brokerLost; // the pass stopped: the broker went away
    bool brokerDown() const { return brokerLost.has_value(); }
};

// Publishes committed outbox rows to RabbitMQ and marks them published.
//
// Nothing is lost to commit order: a row is found by its published flag, not
// by a cursor, so a transaction that took its id early and committed late is
// published when it commits. Each aggregate's events go out in the order
// they were written: the rows fall into 64 buckets by aggregate, one relay at
// a time works a bucket (session advisory locks, freed if the relay dies;
// a pass takes every free bucket and lets them go after at most 50 windows),
// and a row goes out only once every earlier row of its aggregate is
// published or parked. Any number of relays can run; in steady state none
// publishes a row twice. Windows are pipelined: the database marks the
// confirmed rows and reads the next ones while the broker confirms, and a
// window of other aggregates goes out without waiting for the confirms of
// the one before. At most two windows are sent and not yet marked published,
// so after a crash the duplicates are at most two windows.
class OutboxRelay final {
public:
    OutboxRelay(LibpqConnection &connection, AmqpPublisher &publisher, RelayOptions options);

    // One pass over every bucket no other relay is working: windows until
    // nothing is due, or at most 50 windows.
    Result<RelayPass> runOnce();
    // Deletes up to `batch` rows published more than `keepSeconds` ago.
    Result<int> sweepPublished(int keepSeconds, int batch = 1000);
    // Lag (age of the oldest unpublished row, in ms; 0 when none), backlog
    // and parked rows, into the process's metrics.
    Status measure();

    static QString channel() { return QStringLiteral("keel_outbox"); }

private:
    struct DueRow {
        qint64 id = 0;
        qint64 attempts = 0;
        QString aggregate; // type:id
        OutgoingMessage message;
    };

    struct Flow;

    // Windows until nothing is due, at most MaxWindowsPerPass.
    Status publishWindows(const QByteArray &buckets, RelayPass &pass);
    // Reads, sends and settles as each is ready: a window can go out while
    // the one before waits for its confirms.
    Status pipeline(const QByteArray &buckets, RelayPass &pass);
    // Posts the waiting rows whose aggregate has nothing in flight, if the
    // window limit allows; whether a window went out, or why the broker
    // connection failed.
    Result<bool> sendWaiting(Flow &flow);
    // A window's verdicts: confirmed rows wait for their marks, refused ones
    // for recordRefusals().
    void settle(Flow &flow, const AmqpPublisher::SettledWindow &window, RelayPass &pass);
    Status recordRefusals(Flow &flow, RelayPass &pass);
    // Marks `markPublished` published, then reads up to a window of rows
    // that may go out now (the first of each aggregate), in id order,
    // skipping `exclude` (rows in flight or just marked).
    // Marks `markPublished` and reads at most `limit` pending rows not in `exclude`.
    Result<QList<DueRow>> dueRows(const QByteArray &buckets, const QList<qint64> &markPublished,
                                  const QList<qint64> &exclude, int limit);
    Status recordRefusal(const DueRow &row, PublishVerdict verdict, bool park);

    LibpqConnection &m_connection;
    AmqpPublisher &m_publisher;
    RelayOptions m_options;
    QList<qint64> m_unmarked; // confirmed by the broker, not yet marked published
};

// The outbox's state now (the lag of its oldest unpublished row, its backlog,
// what is parked) into /metrics' gauges: the relay's, and the gateway's,
// which is the one scraped.
Status measureOutbox(LibpqConnection &connection);

} // namespace keel
