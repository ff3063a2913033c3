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

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
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
    const int seconds = positiveOption(parser, "seconds", 10);
    const int rounds = positiveOption(parser, "rounds", 3);
    const int threads = positiveOption(parser, "threads", 16);
    QList<int> clientCounts;
    for (const QString &part :
         parser.value(QStringLiteral("clients")).split(u',', Qt::SkipEmptyParts))
        clientCounts << part.toInt();
    if (clientCounts.isEmpty())
        clientCounts = {1, 16};

    auto server = startBenchServer();
    auto cluster = &server->cluster;
    const IssuedMerchant merchant = prepareDatabase(**cluster, QStringLiteral("bench"));
    const IssuedMerchant referenceMerchant =
        prepareDatabase(**cluster, QStringLiteral("reference"));
    const ConnectionSettings db = (*cluster)->settings(QStringLiteral("bench"));
    const ConnectionSettings referenceDb = (*cluster)->settings(QStringLiteral("reference"));
    auto session = LibpqConnection::open(db);
    if (!session)
        die(session.error().message);
    auto referenceSession = LibpqConnection::open(referenceDb);
    if (!referenceSession)
        die(referenceSession.error().message);

    QProcess gateway;
    const int port = spawnKeel(gateway,
                               {QStringLiteral("gateway"), QStringLiteral("--db"), db.conninfo(),
                                QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                                QStringLiteral("--threads"), QString::number(threads)},
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

    const QByteArray referenceId = QByteArray::number(referenceMerchant.merchant.id);
    const QStringList variables{
        QStringLiteral("merchant=") + QString::fromLatin1(referenceId),
        QStringLiteral("clearing=") +
            scalarOf(*referenceSession,
                     "SELECT id FROM keel.ledger_accounts WHERE code = 'channel_clearing:USD'"),
        QStringLiteral("payable=") +
            scalarOf(*referenceSession,
                     "SELECT id FROM keel.ledger_accounts WHERE code = 'merchant_payable:' || $1 "
                     "|| ':USD'",
                     {referenceId})};
    QTemporaryDir scripts;
    const QString script =
        fillReferenceScript(QStringLiteral(KEEL_BENCH_SCRIPT), *session,
                            {{QStringLiteral("@OUTBOX_PAYLOAD_HEX@"),
                              scalarOf(*session, "SELECT payload::text FROM keel.outbox WHERE "
                                                 "event_type = 'charge.succeeded' LIMIT 1")}},
                            scripts.path());

    std::printf(
        "\nkeel gateway vs pgbench: the same writes for one captured charge (3 commits, the "
        "last pipelined), same server, fsync on, pgbench -M prepared; %d round(s) of %d s "
        "each, alternating, medians\n\n",
        rounds, seconds);
    std::printf("%8s | %12s %8s %8s | %12s %8s %8s | %6s\n", "clients", "keel chg/s", "p50 ms",
                "p99 ms", "pgbench tx/s", "p50 ms", "p99 ms", "ratio");
    for (int clients : std::as_const(clientCounts)) {
        std::vector<double> keelRate, keelP50, keelP99, pgRate, pgP50, pgP99, ratios;
        for (int round = 0; round < rounds; ++round) {
            const auto runReference = [&] {
                return pgbench(referenceDb, script, clients, seconds, variables);
            };
            // Whichever goes second meets a warmer (or fuller) server: alternate.
            Run keel, reference;
            if (round % 2 == 0) {
                keel = httpLoad(port, apiKey, clients, seconds, nullptr, &serial);
                reference = runReference();
            } else {
                reference = runReference();
                keel = httpLoad(port, apiKey, clients, seconds, nullptr, &serial);
            }
            keelRate.push_back(keel.perSecond);
            keelP50.push_back(keel.p50Ms);
            keelP99.push_back(keel.p99Ms);
            pgRate.push_back(reference.perSecond);
            pgP50.push_back(reference.p50Ms);
            pgP99.push_back(reference.p99Ms);
            ratios.push_back(reference.perSecond > 0 ? keel.perSecond / reference.perSecond : 0);
        }
        std::printf("%8d | %12.1f %8.2f %8.2f | %12.1f %8.2f %8.2f | %6.2f\n", clients,
                    median(keelRate), median(keelP50), median(keelP99), median(pgRate),
                    median(pgP50), median(pgP99), median(ratios));
        std::fflush(stdout);
    }

    std::vector<double> replayRate, replayP50, replayP99;
    for (int round = 0; round < rounds; ++round) {
        const Run replay = httpLoad(port, apiKey, 16, seconds, &replayKeys, &serial);
        replayRate.push_back(replay.perSecond);
        replayP50.push_back(replay.p50Ms);
        replayP99.push_back(replay.p99Ms);
    }
    std::printf(
        "\nreplay path (same key again), 16 clients: %.1f requests/s, p50 %.2f ms, p99 %.2f ms\n",
        median(replayRate), median(replayP50), median(replayP99));

    auditOrDie(db, "keel");
    auditOrDie(referenceDb, "reference");
    std::printf("targets: ratio >= 0.90 at 1 client, >= 0.80 at 16\n");
    gateway.kill();
    gateway.waitForFinished();
    return 0;
}
