// keel-relay-bench: the outbox relay (database -> RabbitMQ with publisher
// confirms -> rows marked published) against a plain AMQP publisher with
// confirms on the same broker, the same message size and confirm window, as
// a ratio; then the relay's lag (commit to published) under a steady load.
//
// Both sides go to a durable topic exchange with one bound queue (capped, so
// the broker's memory stays flat). Rounds alternate; medians are reported.
//
//   keel-relay-bench [--seconds 10] [--rounds 3] [--rows 50000] [--rate 2000]

#include "BenchSupport.h"

#include "core/db/LibpqConnection.h"
#include "core/outbox/AmqpPublisher.h"
#include "core/outbox/OutboxRelay.h"
#include "core/runtime/RelayRuntime.h"
#include "devkit/servers/EmbeddedBroker.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>

#include <cstdio>
#include <thread>

using namespace keel;
using namespace keel::bench;

namespace {

constexpr int Window = 200;

// One outbox row's payload, the size of a charge event.
QByteArray payloadJson()
{
    return R"({"id":"ch_0123456789abcdefghijklmn","object":"charge","amount":1000,)"
           R"("currency":"usd","status":"succeeded","captured":true,"refunded":false,)"
           R"("amount_refunded":0,"created":1764547200,"metadata":{"order":"A-1001"}})";
}

// Rows for the aggregates ch_<first + 1> ... ch_<first + rows>.
void fillOutbox(LibpqConnection &session, int rows, qint64 first = 0)
{
    auto filled =
        session.query("INSERT INTO keel.outbox (aggregate_type, aggregate_id, event_type, payload) "
                      "SELECT 'charge', 'ch_' || ($3::bigint + g), 'charge.succeeded', $2::jsonb "
                      "FROM generate_series(1, $1) g",
                      {QByteArray::number(rows), payloadJson(), QByteArray::number(first)});
    if (!filled)
        die(filled.error().message);
}

// Waits (up to a minute) until the relay runtime has published every row.
void waitForEmptyOutbox(LibpqConnection &session)
{
    QElapsedTimer drain;
    drain.start();
    while (scalarOf(session, "SELECT count(*) FROM keel.outbox WHERE published_at IS NULL") !=
           QLatin1String("0")) {
        if (drain.elapsed() > 60000)
            die(QStringLiteral("the relay fell behind and did not catch up"));
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

// The relay publishing a full outbox until it is empty: rows per second.
double relayRate(LibpqConnection &session, AmqpPublisher &publisher, const RelayOptions &options,
                 int rows)
{
    fillOutbox(session, rows);
    QElapsedTimer timer;
    timer.start();
    int published = 0;
    while (published < rows) {
        auto pass = OutboxRelay(session, publisher, options).runOnce();
        if (!pass || pass->brokerDown() || pass->failed > 0)
            die(pass ? QStringLiteral("the relay could not publish: %1")
                           .arg(pass->brokerDown() ? pass->brokerLost->message
                                                   : QStringLiteral("refused"))
                     : pass.error().message);
        published += pass->published;
    }
    return double(rows) / (double(timer.nsecsElapsed()) / 1e9);
}

// The same messages from memory, in the same windows: messages per second.
void requireConfirmed(const AmqpPublisher::Published &published)
{
    for (PublishVerdict verdict : published.verdicts)
        if (verdict != PublishVerdict::Confirmed)
            die(QStringLiteral("the plain publisher was refused: %1")
                    .arg(published.connectionLost ? published.connectionLost->message
                                                  : QStringLiteral("returned or nacked")));
}

double plainRate(AmqpPublisher &publisher, int rows)
{
    QList<OutgoingMessage> window;
    QElapsedTimer timer;
    timer.start();
    for (int sent = 0; sent < rows;) {
        window.clear();
        for (int i = 0; i < Window && sent < rows; ++i, ++sent)
            window.append({QStringLiteral("plain-%1").arg(sent),
                           QStringLiteral("charge.charge.succeeded"),
                           R"({"id":"plain","type":"charge.succeeded","aggregate":{"type":)"
                           R"("charge","id":"ch_1"},"created_ms":1764547200000,"payload":)" +
                               payloadJson() + '}'});
        requireConfirmed(publisher.publish(window, 10000));
    }
    return double(rows) / (double(timer.nsecsElapsed()) / 1e9);
}

// The broker's own share of the lag: the plain publisher sending `rate`
// messages per second in 10 ms windows, each message's time from its send
// to its confirm, in microseconds.
std::vector<qint64> plainConfirmLatencies(AmqpPublisher &publisher, int rate, int seconds)
{
    const int perWindow = std::max(1, rate / 100);
    std::vector<qint64> latencies;
    QElapsedTimer timer;
    timer.start();
    for (qint64 window = 0; timer.elapsed() < qint64(seconds) * 1000; ++window) {
        QList<OutgoingMessage> messages;
        for (int i = 0; i < perWindow; ++i)
            messages.append({QStringLiteral("steady-%1-%2").arg(window).arg(i),
                             QStringLiteral("charge.charge.succeeded"), payloadJson()});
        const qint64 sent = timer.nsecsElapsed();
        requireConfirmed(publisher.publish(messages, 10000));
        latencies.insert(latencies.end(), messages.size(), (timer.nsecsElapsed() - sent) / 1000);
        if (const qint64 wait = (window + 1) * 10 - timer.elapsed(); wait > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(wait));
    }
    return latencies;
}

struct Lag {
    double achieved = 0; // events per second the writer committed
    double p50 = 0, p99 = 0;
};

// Each event a new charge's (as traffic mostly is), or every event one of a
// few charges' (each of which the relay publishes one per confirm round trip).
enum class Aggregates { EachNew, FewHot };
constexpr int HotAggregates = 20;

// A writer commits `rate` events per second in 10 ms batches for `seconds`;
// each row's lag is from its commit to its marking as published.
Lag steadyLag(LibpqConnection &session, int rate, int seconds, Aggregates aggregates)
{
    const QString since = scalarOf(session, "SELECT now()::text");
    const int perBatch = std::max(1, rate / 100);
    QElapsedTimer timer;
    timer.start();
    for (qint64 batch = 0; timer.elapsed() < qint64(seconds) * 1000; ++batch) {
        if (aggregates == Aggregates::EachNew)
            fillOutbox(session, perBatch, 1000000000 + batch * perBatch);
        else
            for (int i = 0; i < perBatch; i += HotAggregates)
                fillOutbox(session, std::min(HotAggregates, perBatch - i));
        const qint64 due = (batch + 1) * 10;
        if (const qint64 wait = due - timer.elapsed(); wait > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(wait));
    }
    waitForEmptyOutbox(session);
    auto rows = session.query(
        "SELECT count(*)::float8 / $2, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), "
        "  percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) FROM ("
        "  SELECT extract(epoch FROM published_at - created_at) * 1000 AS ms FROM keel.outbox "
        "  WHERE created_at >= $1::timestamptz) x",
        {since.toUtf8(), QByteArray::number(seconds)});
    if (!rows)
        die(rows.error().message);
    return {rows->value(0, 0).toDouble(), rows->value(0, 1).toDouble(),
            rows->value(0, 2).toDouble()};
}

struct RelayBenchOptions {
    int seconds = 10;
    int rounds = 3;
    int rows = 50000;
    int rate = 2000;
};

RelayBenchOptions parseOptions(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("the outbox relay against a plain AMQP publisher on the same broker"));
    parser.addHelpOption();
    addRoundOptions(parser);
    parser.addOption({QStringLiteral("rows"),
                      QStringLiteral("Messages per throughput round (default 50000)."),
                      QStringLiteral("N")});
    parser.addOption({QStringLiteral("rate"),
                      QStringLiteral("Events per second for the lag measurement (default 2000)."),
                      QStringLiteral("N")});
    parser.process(app);
    RelayBenchOptions options;
    options.seconds = positiveOption(parser, "seconds", options.seconds);
    options.rounds = positiveOption(parser, "rounds", options.rounds);
    options.rows = positiveOption(parser, "rows", options.rows);
    options.rate = positiveOption(parser, "rate", options.rate);
    return options;
}

struct Throughput {
    std::vector<double> relay, plain, ratios;
};

// The relay and the plain publisher in turns, each sending `rows` messages.
Throughput compareWithPlainPublisher(const RelayBenchOptions &bench, LibpqConnection &session,
                                     const RelayOptions &options, AmqpPublisher &relayPublisher,
                                     AmqpPublisher &plainPublisher)
{
    std::printf("relay vs plain AMQP publisher: %d messages per round, confirm window %d, "
                "persistent, durable exchange, fsync on; %d round(s), alternating\n\n",
                bench.rows, Window, bench.rounds);
    Throughput throughput;
    for (int round = 0; round < bench.rounds; ++round) {
        double r = 0, p = 0;
        if (round % 2 == 0) {
            r = relayRate(session, relayPublisher, options, bench.rows);
            p = plainRate(plainPublisher, bench.rows);
        } else {
            p = plainRate(plainPublisher, bench.rows);
            r = relayRate(session, relayPublisher, options, bench.rows);
        }
        throughput.relay.push_back(r);
        throughput.plain.push_back(p);
        throughput.ratios.push_back(r / p);
        std::printf("round %d: relay %.0f msg/s, plain %.0f msg/s, ratio %.2f\n", round + 1, r, p,
                    r / p);
        std::fflush(stdout);
    }
    return throughput;
}

// Lag: a writer commits `rate` events per second in 10 ms batches while
// keel's relay runtime (woken by NOTIFY) publishes them; new aggregates
// first, then a few hot ones.
std::pair<Lag, Lag> measureLag(const RelayBenchOptions &bench, const ConnectionSettings &db,
                               LibpqConnection &session, const RelayOptions &options)
{
    RelayRuntimeOptions runtimeOptions;
    runtimeOptions.settings = db;
    runtimeOptions.relay = options;
    runtimeOptions.catchAllQueue = QStringLiteral("bench");
    auto runtime = RelayRuntime::start(runtimeOptions);
    if (!runtime)
        die(runtime.error().message);
    // The runtime connects to both servers and declares its topology first;
    // the figure is the steady state, so one event goes through before it.
    fillOutbox(session, 1);
    waitForEmptyOutbox(session);
    const Lag lag = steadyLag(session, bench.rate, bench.seconds, Aggregates::EachNew);
    const Lag hotLag = steadyLag(session, bench.rate, bench.seconds, Aggregates::FewHot);
    (*runtime)->stop();
    return {lag, hotLag};
}

void printFigures(const RelayBenchOptions &bench, const Throughput &throughput,
                  const std::pair<Lag, Lag> &lags, std::vector<qint64> &plainLatencies)
{
    const auto &[lag, hotLag] = lags;
    std::printf("\n%14s | %14s | %6s | %18s | %12s %12s\n", "relay msg/s", "plain msg/s", "ratio",
                "steady events/s", "lag p50 ms", "lag p99 ms");
    std::printf("%14.0f | %14.0f | %6.2f | %18.0f | %12.1f %12.1f\n", median(throughput.relay),
                median(throughput.plain), median(throughput.ratios), lag.achieved, lag.p50,
                lag.p99);
    std::printf("the same rate on %d aggregates (%d events/s each, one per confirm round trip at "
                "most): lag p50 %.1f ms, p99 %.1f ms\n",
                HotAggregates, bench.rate / HotAggregates, hotLag.p50, hotLag.p99);
    std::printf("the broker alone at %d messages/s (plain publisher, send to confirm): "
                "p50 %.1f ms, p99 %.1f ms\n",
                bench.rate, percentile(plainLatencies, 0.5), percentile(plainLatencies, 0.99));
    std::printf("targets: ratio >= 0.7 (goal 0.9), lag p99 < 100 ms\n");
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const RelayBenchOptions bench = parseOptions(app);
    auto server = startBenchServer();
    prepareDatabase(*server->cluster, QStringLiteral("bench"));
    const ConnectionSettings db = server->cluster->settings(QStringLiteral("bench"));
    QTemporaryDir brokerDirectory(QStringLiteral("/tmp/keel-bench-broker-XXXXXX"));
    auto broker = EmbeddedBroker::start(brokerDirectory.path());
    if (!broker)
        die(broker.error().message);
    RelayOptions options;
    options.broker = (*broker)->address();
    options.batch = Window;
    AmqpPublisher relayPublisher(options.broker, options.exchange);
    relayPublisher.setCatchAllQueue(QStringLiteral("bench"), 100000);
    AmqpPublisher plainPublisher(options.broker, options.exchange);
    plainPublisher.setCatchAllQueue(QStringLiteral("bench"), 100000);
    auto session = LibpqConnection::open(db);
    if (!session)
        die(session.error().message);

    const Throughput throughput =
        compareWithPlainPublisher(bench, *session, options, relayPublisher, plainPublisher);
    std::vector<qint64> plainLatencies =
        plainConfirmLatencies(plainPublisher, bench.rate, bench.seconds);
    const std::pair<Lag, Lag> lags = measureLag(bench, db, *session, options);
    printFigures(bench, throughput, lags, plainLatencies);
    (void)(*broker)->stop();
    return 0;
}
