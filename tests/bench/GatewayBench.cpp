// keel-bench: keel gateway against pgbench doing the same writes on the same
// PostgreSQL, in one run. Prints charges/s and p50/p99 latency for 1 and 16
// clients, the ratio gateway/pgbench, and the replay path. Medians over rounds.
//
// Like for like: the reference (tests/bench/charge_writes.sql) makes the same
// commits and round trips as keel, pipelined where keel pipelines, and stores
// rows of the same size (the stored response, headers and outbox payload are
// the ones keel stored during warm-up). It writes into a database of its own
// on the same server, so the gateway's housekeeping never works on its rows.
// Keel and reference rounds alternate, and which goes first alternates too.
// Any failed request, unparsable pgbench output or unbalanced ledger fails
// the run.
//
//   keel-bench [--seconds 10] [--rounds 3] [--clients 1,16]
#include "core/db/ConnectionSettings.h"
#include "core/db/LibpqConnection.h"
#include "core/db/Migrator.h"
#include "core/db/QtSqlConnections.h"
#include "core/ledger/Ledger.h"
#include "core/merchant/MerchantStore.h"
#include "core/net/HttpClient.h"
#include "devkit/servers/EmbeddedCluster.h"
#include "devkit/servers/ServerBinaries.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QRegularExpression>
#include <QSysInfo>
#include <QTemporaryDir>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <sys/prctl.h>
#include <thread>
#include <vector>

#include "BenchSupport.h"

using namespace keel;
using namespace keel::bench;

namespace {

// Each client thread posts new charges (or replays known keys) over one
// keep-alive connection until the time is up.
Run httpLoad(int port, const QByteArray &apiKey, int clients, int seconds,
             const std::vector<QByteArray> *replayKeys, std::atomic<qint64> *serial)
{
    std::vector<std::vector<qint64>> latencies(static_cast<size_t>(clients));
    std::atomic<qint64> errors{0};
    std::vector<std::thread> threads;
    QElapsedTimer wall;
    wall.start();
    const qint64 deadlineMs = qint64(seconds) * 1000;
    for (int c = 0; c < clients; ++c) {
        threads.emplace_back([&, c] {
            HttpClient client(QStringLiteral("127.0.0.1"), port);
            const HttpClient::Headers base{{"Authorization", "Bearer " + apiKey},
                                           {"Content-Type", "application/x-www-form-urlencoded"}};
            qint64 i = 0;
            while (wall.elapsed() < deadlineMs) {
                const QByteArray key =
                    replayKeys
                        ? (*replayKeys)[size_t((c * 7919 + i++) % qint64(replayKeys->size()))]
                        : "bench-" + QByteArray::number(serial->fetch_add(1));
                HttpClient::Headers headers = base;
                headers.append(std::pair<QByteArray, QByteArray>("Idempotency-Key", key));
                QElapsedTimer one;
                one.start();
                const HttpReply reply = client.request("POST", "/v1/charges", headers,
                                                       "amount=1000&currency=usd&source=tok_visa");
                if (reply.status != 200) {
                    ++errors;
                    continue;
                }
                latencies[size_t(c)].push_back(one.nsecsElapsed() / 1000);
            }
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    const double elapsed = double(wall.nsecsElapsed()) / 1e9;
    std::vector<qint64> all;
    for (const auto &perClient : latencies)
        all.insert(all.end(), perClient.begin(), perClient.end());
    if (errors.load() > 0)
        die(QStringLiteral("%1 requests were not answered 200").arg(errors.load()));
    Run run;
    run.count = qint64(all.size());
    run.perSecond = double(all.size()) / elapsed;
    run.p50Ms = percentile(all, 0.50);
    run.p99Ms = percentile(all, 0.99);
    return run;
}

struct GatewayBenchOptions {
    int seconds = 10;
    int rounds = 3;
    int threads = 16;
    QList<int> clientCounts{1, 16};
};

GatewayBenchOptions parseOptions(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("keel gateway against pgbench on the same server"));
    parser.addHelpOption();
    addRoundOptions(parser);
    parser.addOption({QStringLiteral("clients"), QStringLiteral("Client counts (default 1,16)."),
                      QStringLiteral("LIST")});
    parser.addOption({QStringLiteral("threads"),
                      QStringLiteral("Gateway worker threads (default 16)."), QStringLiteral("N")});
    parser.process(app);
    GatewayBenchOptions options;
    options.seconds = positiveOption(parser, "seconds", options.seconds);
    options.rounds = positiveOption(parser, "rounds", options.rounds);
    options.threads = positiveOption(parser, "threads", options.threads);
    QList<int> clientCounts;
    for (const QString &part :
         parser.value(QStringLiteral("clients")).split(u',', Qt::SkipEmptyParts))
        clientCounts << part.toInt();
    if (!clientCounts.isEmpty())
        options.clientCounts = clientCounts;
    return options;
}

// pgbench's side: the reference database's accounts as variables, and the
// script filled with a reply and an outbox payload keel wrote while warming up.
struct Reference {
    ConnectionSettings db;
    QStringList variables;
    QString script;
};

Reference prepareReference(EmbeddedCluster &cluster, LibpqConnection &keelSession,
                           const QString &scriptDirectory)
{
    const IssuedMerchant merchant = prepareDatabase(cluster, QStringLiteral("reference"));
    Reference reference;
    reference.db = cluster.settings(QStringLiteral("reference"));
    auto session = LibpqConnection::open(reference.db);
    if (!session)
        die(session.error().message);
    const QByteArray merchantId = QByteArray::number(merchant.merchant.id);
    reference.variables = {
        QStringLiteral("merchant=") + QString::fromLatin1(merchantId),
        QStringLiteral("clearing=") +
            scalarOf(*session,
                     "SELECT id FROM keel.ledger_accounts WHERE code = 'channel_clearing:USD'"),
        QStringLiteral("payable=") +
            scalarOf(*session,
                     "SELECT id FROM keel.ledger_accounts WHERE code = 'merchant_payable:' || $1 "
                     "|| ':USD'",
                     {merchantId})};
    reference.script =
        fillReferenceScript(QStringLiteral(KEEL_BENCH_SCRIPT), keelSession,
                            {{QStringLiteral("@OUTBOX_PAYLOAD_HEX@"),
                              scalarOf(keelSession, "SELECT payload::text FROM keel.outbox WHERE "
                                                    "event_type = 'charge.succeeded' LIMIT 1")}},
                            scriptDirectory);
    return reference;
}

// The rounds at one client count, as the table's columns.
struct RoundFigures {
    std::vector<double> keelRate, keelP50, keelP99, pgRate, pgP50, pgP99, ratios;

    void add(const Run &keel, const Run &reference)
    {
        keelRate.push_back(keel.perSecond);
        keelP50.push_back(keel.p50Ms);
        keelP99.push_back(keel.p99Ms);
        pgRate.push_back(reference.perSecond);
        pgP50.push_back(reference.p50Ms);
        pgP99.push_back(reference.p99Ms);
        ratios.push_back(reference.perSecond > 0 ? keel.perSecond / reference.perSecond : 0);
    }
    void print(int clients) const
    {
        std::printf("%8d | %12.1f %8.2f %8.2f | %12.1f %8.2f %8.2f | %6.2f\n", clients,
                    median(keelRate), median(keelP50), median(keelP99), median(pgRate),
                    median(pgP50), median(pgP99), median(ratios));
        std::fflush(stdout);
    }
};

// keel and pgbench at each client count, alternating which goes first.
void compareWithPgbench(const GatewayBenchOptions &options, int port, const QByteArray &apiKey,
                        const Reference &reference, std::atomic<qint64> &serial)
{
    std::printf(
        "\nkeel gateway vs pgbench: the same writes for one captured charge (3 commits, the "
        "last pipelined), same server, fsync on, pgbench -M prepared; %d round(s) of %d s "
        "each, alternating, medians\n\n",
        options.rounds, options.seconds);
    std::printf("%8s | %12s %8s %8s | %12s %8s %8s | %6s\n", "clients", "keel chg/s", "p50 ms",
                "p99 ms", "pgbench tx/s", "p50 ms", "p99 ms", "ratio");
    for (int clients : options.clientCounts) {
        RoundFigures figures;
        for (int round = 0; round < options.rounds; ++round) {
            const auto runKeel = [&] {
                return httpLoad(port, apiKey, clients, options.seconds, nullptr, &serial);
            };
            const auto runReference = [&] {
                return pgbench(reference.db, reference.script, clients, options.seconds,
                               reference.variables);
            };
            // Whichever goes second meets a warmer (or fuller) server: alternate.
            if (round % 2 == 0) {
                const Run keel = runKeel();
                figures.add(keel, runReference());
            } else {
                const Run pg = runReference();
                figures.add(runKeel(), pg);
            }
        }
        figures.print(clients);
    }
}

void measureReplay(const GatewayBenchOptions &options, int port, const QByteArray &apiKey,
                   const std::vector<QByteArray> &replayKeys, std::atomic<qint64> &serial)
{
    std::vector<double> replayRate, replayP50, replayP99;
    for (int round = 0; round < options.rounds; ++round) {
        const Run replay = httpLoad(port, apiKey, 16, options.seconds, &replayKeys, &serial);
        replayRate.push_back(replay.perSecond);
        replayP50.push_back(replay.p50Ms);
        replayP99.push_back(replay.p99Ms);
    }
    std::printf(
        "\nreplay path (same key again), 16 clients: %.1f requests/s, p50 %.2f ms, p99 %.2f ms\n",
        median(replayRate), median(replayP50), median(replayP99));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const GatewayBenchOptions options = parseOptions(app);
    auto server = startBenchServer();
    const IssuedMerchant merchant = prepareDatabase(*server->cluster, QStringLiteral("bench"));
    const ConnectionSettings db = server->cluster->settings(QStringLiteral("bench"));
    auto session = LibpqConnection::open(db);
    if (!session)
        die(session.error().message);

    QProcess gateway;
    const int port = spawnKeel(gateway,
                               {QStringLiteral("gateway"), QStringLiteral("--db"), db.conninfo(),
                                QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                                QStringLiteral("--threads"), QString::number(options.threads)},
                               QStringLiteral("KEEL_HTTP="))
                         .section(u':', -1)
                         .toInt();

    const QByteArray apiKey = merchant.apiKey.toLatin1();
    std::atomic<qint64> serial{0};
    std::printf("warming up (also creates the merchant's ledger account)...\n");
    std::fflush(stdout);
    httpLoad(port, apiKey, 4, 2, nullptr, &serial);
    std::vector<QByteArray> replayKeys;
    for (qint64 i = 0; i < std::min<qint64>(serial.load(), 2000); ++i)
        replayKeys.push_back("bench-" + QByteArray::number(i));

    QTemporaryDir scripts;
    const Reference reference = prepareReference(*server->cluster, *session, scripts.path());
    compareWithPgbench(options, port, apiKey, reference, serial);
    measureReplay(options, port, apiKey, replayKeys, serial);

    auditOrDie(db, "keel");
    auditOrDie(reference.db, "reference");
    std::printf("targets: ratio >= 0.90 at 1 client, >= 0.80 at 16\n");
    gateway.kill();
    gateway.waitForFinished();
    return 0;
}
