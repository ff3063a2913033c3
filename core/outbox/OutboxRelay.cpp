#include "core/outbox/OutboxRelay.h"

#include "core/db/LibpqConnection.h"
#include "core/metrics/Metrics.h"
#include "core/outbox/AmqpPublisher.h"

#include <QElapsedTimer>
#include <QSet>
#include <QStringList>

#include <algorithm>
#include <chrono>
#include <future>
#include <utility>

namespace keel {
namespace {

constexpr int Buckets = 64;
// The advisory lock space keel's relays use: (this, bucket).
constexpr int RelayLockClass = 7301;
// Windows per pass before the buckets are let go for other relays.
constexpr int MaxWindowsPerPass = 50;
// Windows sent and not yet marked published (in flight, or confirmed and
// waiting for the next read's marks): what a crash can publish twice.
constexpr int MaxUnmarkedWindows = 2;
// While windows wait for confirms, rows committed meanwhile are looked for
// this often, so they do not wait for those confirms.
constexpr qint64 ReadEveryMs = 5;

QByteArray idList(const QList<qint64> &ids)
{
    QStringList items;
    for (const qint64 id : ids)
        items << QString::number(id);
    return LibpqConnection::arrayParam(items);
}

QString refusal(PublishVerdict verdict, const QString &routingKey)
{
    return verdict == PublishVerdict::Returned
               ? QStringLiteral("returned: no queue is bound for routing key %1").arg(routingKey)
               : QStringLiteral("the broker refused the message (nack)");
}

// The statement dueRows() runs. The body's fields are written out twice, so
// the common case builds its JSON once and only a resend adds its lineage.
QByteArray dueRowsSql()
{
    const QByteArray fields =
        "'id', 'keel-outbox-' || c.id, 'type', c.event_type, "
        "'aggregate', json_build_object('type', c.aggregate_type, 'id', c.aggregate_id), "
        "'created_ms', (extract(epoch FROM c.created_at) * 1000)::bigint, 'payload', c.payload";
    return "WITH marked AS (UPDATE keel.outbox SET published_at = now() "
           "    WHERE id = ANY($3::bigint[])), "
           "  candidates AS MATERIALIZED (SELECT * FROM keel.outbox "
           "    WHERE published_at IS NULL AND parked_at IS NULL AND bucket = ANY($1::smallint[]) "
           "      AND id <> ALL($4::bigint[]) ORDER BY id LIMIT $2), "
           "  retrying AS MATERIALIZED (SELECT aggregate_type, aggregate_id, min(id) AS first_id "
           "    FROM keel.outbox WHERE published_at IS NULL AND parked_at IS NULL AND attempts > 0 "
           "      AND bucket = ANY($1::smallint[]) GROUP BY aggregate_type, aggregate_id) "
           "SELECT c.id, c.aggregate_type || ':' || c.aggregate_id, "
           "  c.aggregate_type || '.' || c.event_type, c.attempts, c.next_attempt_at <= now(), "
           "  CASE WHEN c.resend_of IS NULL THEN json_build_object(" +
           fields +
           ")::text "
           "    ELSE json_build_object(" +
           fields +
           ", 'lineage', json_build_object("
           "      'original_id', 'keel-outbox-' || c.resend_of, 'resend_count', c.resend_count))"
           "      ::text END "
           "FROM candidates c LEFT JOIN retrying r ON r.aggregate_type = c.aggregate_type "
           "  AND r.aggregate_id = c.aggregate_id AND r.first_id < c.id "
           "WHERE r.first_id IS NULL ORDER BY c.id";
}

} // namespace

OutboxRelay::OutboxRelay(LibpqConnection &connection, AmqpPublisher &publisher,
                         RelayOptions options)
    : m_connection(connection), m_publisher(publisher), m_options(std::move(options))
{}

Result<RelayPass> OutboxRelay::runOnce()
{
    RelayPass pass;
    // Every bucket no other relay holds, in one round trip.
    Result<PgRows> locked = m_connection.query(
        "SELECT coalesce(array_agg(b), '{}')::text FROM generate_series(0, $2::int - 1) b "
        "WHERE pg_try_advisory_lock($1::int, b)",
        {QByteArray::number(RelayLockClass), QByteArray::number(Buckets)});
    if (!locked)
        return locked.error();
    const QByteArray buckets = locked->value(0, 0);
    if (buckets == "{}")
        return pass;
    // A pass is bounded, so other relays get their turn at the buckets.
    Status drained = publishWindows(buckets, pass);
    // The last window's rows are marked before their buckets are let go, so
    // no other relay publishes them again.
    Result<PgRows> unlocked = m_connection.query(
        "WITH marked AS (UPDATE keel.outbox SET published_at = now() "
        "  WHERE id = ANY($3::bigint[])) "
        "SELECT pg_advisory_unlock($1::int, b) FROM unnest($2::int[]) b",
        {QByteArray::number(RelayLockClass), buckets, idList(std::exchange(m_unmarked, {}))});
    if (!drained)
        return drained.error();
    if (!unlocked)
        return unlocked.error();
    return pass;
}

Status OutboxRelay::publishWindows(const QByteArray &buckets, RelayPass &pass)
{
    Status done = pipeline(buckets, pass);
    if (!done && m_publisher.openWindows() > 0)
        m_publisher.disconnect(); // their confirms would arrive in another pass
    return done;
}

// What one pass has under way: the windows in flight, the rows read but
// held behind their aggregate's row in flight, the refusals the database has
// yet to record, and how many windows are sent but not marked published.
struct OutboxRelay::Flow {
    struct Window {
        quint64 ticket = 0;
        QList<DueRow> rows;
    };
    QList<Window> inFlight;
    QList<DueRow> waiting; // in id order
    QList<std::pair<DueRow, PublishVerdict>> refused;
    int confirmedWindows = 0; // confirmed, their marks not yet sent
    int markingWindows = 0;   // confirmed, marked by the running read
    int windows = 0;

    int unmarkedWindows() const { return int(inFlight.size()) + confirmedWindows + markingWindows; }
    bool maySend() const
    {
        return windows < MaxWindowsPerPass && unmarkedWindows() < MaxUnmarkedWindows;
    }
    QList<qint64> inFlightIds() const
    {
        QList<qint64> ids;
        for (const Window &window : inFlight)
            for (const DueRow &row : window.rows)
                ids << row.id;
        return ids;
    }
    QList<qint64> waitingIds() const
    {
        QList<qint64> ids;
        for (const DueRow &row : waiting)
            ids << row.id;
        return ids;
    }
    QSet<qint64> knownIds(const QList<qint64> &unmarked) const
    {
        QSet<qint64> ids(unmarked.begin(), unmarked.end());
        for (const qint64 id : inFlightIds())
            ids.insert(id);
        for (const DueRow &row : waiting)
            ids.insert(row.id);
        for (const auto &[row, verdict] : refused)
            ids.insert(row.id);
        return ids;
    }
    // Aggregates with a row in flight or refused and not yet recorded: their
    // later rows wait.
    QSet<QString> busyAggregates() const
    {
        QSet<QString> busy;
        for (const Window &window : inFlight)
            for (const DueRow &row : window.rows)
                busy.insert(row.aggregate);
        for (const auto &[row, verdict] : refused)
            busy.insert(row.aggregate);
        return busy;
    }
};

Status OutboxRelay::pipeline(const QByteArray &buckets, RelayPass &pass)
{
    Flow flow;
    std::future<Result<QList<DueRow>>> reading;
    bool worthReading = true;
    std::optional<Error> brokerLost;
    QElapsedTimer sinceRead;
    sinceRead.start();
    int limit = 0; // of the running read
    for (;;) {
        if (!reading.valid()) {
            // The connection is free: record the refusals, then read (which
            // marks the confirmed rows published).
            if (Status recorded = recordRefusals(flow, pass); !recorded)
                return recorded;
            if (brokerLost) {
                pass.brokerLost = brokerLost;
                return {};
            }
            if ((worthReading && flow.maySend()) || !m_unmarked.isEmpty()) {
                // Rows already read are neither read nor rendered again; the
                // read tops the rows at hand up to two windows.
                const QList<qint64> exclude = m_unmarked + flow.inFlightIds() + flow.waitingIds();
                limit = std::max(0, 2 * m_options.batch - int(flow.waiting.size()));
                flow.markingWindows = std::exchange(flow.confirmedWindows, 0);
                reading = std::async(std::launch::async,
                                     [&, marked = std::exchange(m_unmarked, {}), exclude, limit] {
                                         return dueRows(buckets, marked, exclude, limit);
                                     });
                worthReading = false;
                sinceRead.restart();
            } else if (flow.inFlight.isEmpty()) {
                return {};
            }
        }
        if (reading.valid() && (flow.inFlight.isEmpty() || reading.wait_for(std::chrono::seconds(
                                                               0)) == std::future_status::ready)) {
            Result<QList<DueRow>> next = reading.get();
            flow.markingWindows = 0;
            if (!next)
                return next.error();
            const QSet<qint64> known = flow.knownIds(m_unmarked);
            for (const DueRow &row : *next)
                if (!known.contains(row.id))
                    flow.waiting.append(row);
            std::sort(flow.waiting.begin(), flow.waiting.end(),
                      [](const DueRow &a, const DueRow &b) { return a.id < b.id; });
            if (brokerLost)
                continue; // the pass ends at the top; a window sent now would go unconfirmed
            // A full window suggests more right behind it.
            const Result<bool> sent = sendWaiting(flow);
            if (!sent)
                brokerLost = sent.error();
            worthReading =
                sent && *sent && (limit == 0 || next->size() >= std::min(limit, m_options.batch));
            continue;
        }
        // Waits for confirms: briefly while a read runs, to take its rows at
        // once; otherwise until it is time to look for rows committed since.
        const int waitMs = reading.valid() ? 1
                           : flow.maySend()
                               ? int(std::max<qint64>(1, ReadEveryMs - sinceRead.elapsed()))
                               : m_options.confirmTimeoutMs;
        const AmqpPublisher::Collected collected = m_publisher.collect(waitMs);
        for (const AmqpPublisher::SettledWindow &window : collected.windows)
            settle(flow, window, pass);
        if (collected.connectionLost)
            brokerLost = collected.connectionLost;
        if (!collected.windows.isEmpty() && !brokerLost)
            if (const Result<bool> sent = sendWaiting(flow); !sent)
                brokerLost = sent.error();
        if (!collected.windows.isEmpty() || brokerLost || sinceRead.elapsed() >= ReadEveryMs)
            worthReading = true;
    }
}

Result<bool> OutboxRelay::sendWaiting(Flow &flow)
{
    if (flow.waiting.isEmpty() || !flow.maySend())
        return false;
    // One row per aggregate, and none whose aggregate has a row in flight.
    QSet<QString> busy = flow.busyAggregates();
    QList<DueRow> rows;
    flow.waiting.removeIf([&](const DueRow &row) {
        if (rows.size() >= m_options.batch || busy.contains(row.aggregate))
            return false;
        busy.insert(row.aggregate);
        rows.append(row);
        return true;
    });
    if (rows.isEmpty())
        return false;
    QList<OutgoingMessage> messages;
    messages.reserve(rows.size());
    for (const DueRow &row : rows)
        messages.append(row.message);
    const Result<quint64> ticket = m_publisher.post(messages, m_options.confirmTimeoutMs);
    if (!ticket)
        return ticket.error();
    flow.inFlight.append({*ticket, rows});
    ++flow.windows;
    return true;
}

void OutboxRelay::settle(Flow &flow, const AmqpPublisher::SettledWindow &window, RelayPass &pass)
{
    const auto found =
        std::find_if(flow.inFlight.begin(), flow.inFlight.end(),
                     [&](const Flow::Window &sent) { return sent.ticket == window.ticket; });
    if (found == flow.inFlight.end())
        return;
    const QList<DueRow> rows = found->rows;
    flow.inFlight.erase(found);
    int confirmed = 0;
    for (qsizetype i = 0; i < rows.size(); ++i) {
        if (window.verdicts[i] == PublishVerdict::Confirmed) {
            // Marked published by the next read, or as the pass ends.
            m_unmarked << rows[i].id;
            ++confirmed;
        } else if (window.verdicts[i] != PublishVerdict::Unknown) {
            // Unknown: the broker went away, not the message's fault.
            flow.refused.append({rows[i], window.verdicts[i]});
        }
    }
    if (confirmed > 0)
        ++flow.confirmedWindows;
    pass.published += confirmed;
    Metrics::instance().countOutbox(QStringLiteral("published"), confirmed);
}

Status OutboxRelay::recordRefusals(Flow &flow, RelayPass &pass)
{
    // A read that skipped a refused row in flight may have brought its
    // aggregate's next row; once the refusal is recorded the database holds
    // that row back, and here it is dropped.
    QSet<QString> refusedAggregates;
    for (const auto &[row, verdict] : flow.refused)
        refusedAggregates.insert(row.aggregate);
    flow.waiting.removeIf(
        [&](const DueRow &row) { return refusedAggregates.contains(row.aggregate); });
    for (const auto &[row, verdict] : std::exchange(flow.refused, {})) {
        const bool park = row.attempts + 1 >= m_options.maxAttempts;
        if (Status recorded = recordRefusal(row, verdict, park); !recorded)
            return recorded;
        ++(park ? pass.parked : pass.failed);
        Metrics::instance().countOutbox(park ? QStringLiteral("parked") : QStringLiteral("failed"),
                                        1);
    }
    return {};
}

Result<QList<OutboxRelay::DueRow>> OutboxRelay::dueRows(const QByteArray &buckets,
                                                        const QList<qint64> &markPublished,
                                                        const QList<qint64> &exclude, int limit)
{
    // Marks the previous window's confirmed rows published, in the same
    // round trip and commit, and reads the next: the oldest pending rows of
    // these buckets in id order (the pending index gives them cheaply
    // whatever the planner knows of the table), leaving out the rows in
    // flight or just marked (still pending in this statement's snapshot) and
    // the aggregates whose earlier row waits for a retry. Every other earlier
    // pending row of an aggregate is in this prefix, so keeping the first row
    // of each aggregate keeps each aggregate's order (a row in flight is
    // dealt with by the caller). The server renders the message body; a
    // resent message's names the one it repeats.
    static const QByteArray sql = dueRowsSql();
    Result<PgRows> rows = m_connection.query(
        sql, {buckets, QByteArray::number(limit), idList(markPublished), idList(exclude)});
    if (!rows)
        return rows.error();
    QList<DueRow> due;
    QSet<QString> seen;
    for (int row = 0; row < rows->size(); ++row) {
        const QString aggregate = rows->text(row, 1);
        if (seen.contains(aggregate))
            continue; // its earlier row goes out first
        seen.insert(aggregate);
        if (rows->value(row, 4) != "t")
            continue; // backing off; later rows of its aggregate wait too
        const qint64 id = rows->toInt64(row, 0);
        due.append(
            {id,
             rows->toInt64(row, 3),
             aggregate,
             {QStringLiteral("keel-outbox-%1").arg(id), rows->text(row, 2), rows->value(row, 5)}});
    }
    return due;
}

Status OutboxRelay::recordRefusal(const DueRow &row, PublishVerdict verdict, bool park)
{
    Result<PgRows> failed = m_connection.query(
        "UPDATE keel.outbox SET attempts = attempts + 1, last_error = $2, "
        "  next_attempt_at = now() + least(power(2, attempts), 300) * interval '1 second', "
        "  parked_at = CASE WHEN $3 THEN now() END WHERE id = $1",
        {QByteArray::number(row.id), refusal(verdict, row.message.routingKey).toUtf8(),
         park ? "true" : "false"});
    if (!failed)
        return failed.error();
    return {};
}

Result<int> OutboxRelay::sweepPublished(int keepSeconds, int batch)
{
    Result<PgRows> rows = m_connection.query(
        "DELETE FROM keel.outbox WHERE id IN (SELECT id FROM keel.outbox "
        "  WHERE published_at < now() - $1 * interval '1 second' ORDER BY published_at LIMIT $2)",
        {QByteArray::number(keepSeconds), QByteArray::number(batch)});
    if (!rows)
        return rows.error();
    return rows->affected();
}

Status OutboxRelay::measure()
{
    return measureOutbox(m_connection);
}

Status measureOutbox(LibpqConnection &connection)
{
    Result<PgRows> rows = connection.query(
        "SELECT coalesce((SELECT (extract(epoch FROM now() - created_at) * 1000)::bigint "
        "    FROM keel.outbox WHERE published_at IS NULL AND parked_at IS NULL "
        "    ORDER BY id LIMIT 1), 0), "
        "  (SELECT count(*) FROM keel.outbox WHERE published_at IS NULL AND parked_at IS NULL), "
        "  (SELECT count(*) FROM keel.outbox WHERE parked_at IS NOT NULL AND resent_at IS NULL)");
    if (!rows)
        return rows.error();
    Metrics::instance().setOutboxState(rows->toInt64(0, 0), rows->toInt64(0, 1),
                                       rows->toInt64(0, 2));
    return {};
}

} // namespace keel
