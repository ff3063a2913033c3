// keel-saga-bench: completed 2-step sagas per second through keel (a gateway
// taking POST /v1/sagas, a worker calling two local HTTP participants),
// against pgbench making the same six commits per saga on the same server
// (tests/bench/saga_writes.sql), as a ratio; plus step and saga latency.
//
// Clients post sagas with fresh Idempotency-Keys and keep a bounded number
// outstanding; completions are counted from the database. Step latency is
// from a step's attempt_started to its attempt_ended event (the participant
// call and the recording around it); saga latency from creation to finish.
// Keel and reference rounds alternate. A saga that does not succeed, a
// failed request or an unbalanced ledger fails the run.
//
//   keel-saga-bench [--seconds 10] [--rounds 3] [--clients 16] [--forward 16]

#include "BenchSupport.h"

#include "core/db/LibpqConnection.h"
#include "core/net/HttpClient.h"
#include "core/net/HttpRequest.h"
#include "core/net/HttpResponse.h"
#include "core/net/HttpServer.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSysInfo>
#include <QTemporaryDir>

#include <atomic>
#include <cstdio>
#include <thread>

using namespace keel;
using namespace keel::bench;

namespace {

// Two participants that answer at once: the bench measures keel, not them.
class InstantParticipant final : public HttpHandler {
public:
    HttpResponse handle(const HttpRequest &) override
    {
        return jsonResponse(200, "{\"dtm_result\":\"SUCCESS\"}");
    }
    HttpResponse refuse(HttpRefusal) override { return jsonResponse(400, "{}"); }
};

QByteArray sagaBody(int participantPort)
{
    const auto step = [&](const char *name, const char *path) {
        return QJsonObject{
            {QStringLiteral("name"), QString::fromLatin1(name)},
            {QStringLiteral("action_url"),
             QStringLiteral("http://127.0.0.1:%1%2").arg(participantPort).arg(QLatin1String(path))},
            {QStringLiteral("compensate_url"),
             QStringLiteral("http://127.0.0.1:%1/undo").arg(participantPort)},
            {QStringLiteral("payload"), QJsonObject{{QStringLiteral("sku"), 42}}}};
    };
    return QJsonDocument(
               QJsonObject{{QStringLiteral("name"), QStringLiteral("bench")},
                           {QStringLiteral("steps"),
                            QJsonArray{step("reserve", "/reserve"), step("confirm", "/confirm")}}})
        .toJson(QJsonDocument::Compact);
}

struct SagaLoad {
    int gatewayPort = 0;
    QByteArray apiKey;
    QByteArray body;
    ConnectionSettings db;
    std::atomic<qint64> *serial = nullptr;
};

qint64 succeeded(LibpqConnection &session)
{
    return scalarOf(session, "SELECT count(*) FROM keel.sagas WHERE status = 'succeeded'")
        .toLongLong();
}

// Posts sagas from `clients` threads for `seconds`, keeping at most
// 2 x clients outstanding; the rate is what completed in the window.
Run sagaLoad(const SagaLoad &load, int clients, int seconds)
{
    auto monitor = LibpqConnection::open(load.db);
    if (!monitor)
        die(monitor.error().message);
    std::atomic<qint64> completed{succeeded(*monitor)};
    std::atomic<qint64> posted{completed.load()};
    std::atomic<qint64> errors{0};
    std::atomic<bool> stopping{false};
    const qint64 startCount = completed.load();
    const QString since = scalarOf(*monitor, "SELECT now()::text");
    QElapsedTimer wall;
    wall.start();
    std::vector<std::thread> threads;
    for (int c = 0; c < clients; ++c) {
        threads.emplace_back([&] {
            HttpClient client(QStringLiteral("127.0.0.1"), load.gatewayPort);
            while (!stopping) {
                if (posted.load() - completed.load() >= 2 * clients) {
                    std::this_thread::sleep_for(std::chrono::microseconds(500));
                    continue;
                }
                const HttpReply reply = client.request(
                    "POST", "/v1/sagas",
                    {{"Authorization", "Bearer " + load.apiKey},
                     {"Content-Type", "application/json"},
                     {"Idempotency-Key",
                      "saga-bench-" + QByteArray::number(load.serial->fetch_add(1))}},
                    load.body);
                if (reply.status != 200)
                    ++errors;
                else
                    ++posted;
            }
        });
    }
    while (wall.elapsed() < qint64(seconds) * 1000) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        completed = succeeded(*monitor);
    }
    const qint64 done = succeeded(*monitor) - startCount;
    const double elapsed = double(wall.nsecsElapsed()) / 1e9;
    stopping = true;
    for (std::thread &thread : threads)
        thread.join();
    if (errors.load() > 0)
        die(QStringLiteral("%1 saga requests were not answered 200").arg(errors.load()));
    // Let the outstanding ones finish, so the next round starts empty.
    QElapsedTimer drain;
    drain.start();
    while (scalarOf(*monitor, "SELECT count(*) FROM keel.sagas WHERE status <> 'succeeded'") !=
           QLatin1String("0")) {
        if (drain.elapsed() > 60000)
            die(QStringLiteral("sagas did not all succeed"));
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    Run run;
    run.count = done;
    run.perSecond = double(done) / elapsed;
    // Step latency of the steps that ended in this window.
    auto steps =
        monitor->query("SELECT coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), 0), "
                       "  coalesce(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms), 0) FROM ("
                       "  SELECT extract(epoch FROM e.created_at - s.created_at) * 1000 AS ms "
                       "  FROM keel.saga_events e JOIN keel.saga_events s ON s.saga_id = e.saga_id "
                       "    AND s.step_index = e.step_index AND s.event = 'attempt_started' "
                       "  WHERE e.event = 'attempt_ended' AND e.created_at >= $1::timestamptz) x",
                       {since.toUtf8()});
    if (!steps)
        die(steps.error().message);
    run.p50Ms = steps->value(0, 0).toDouble();
    run.p99Ms = steps->value(0, 1).toDouble();
    return run;
}

struct SagaLatency {
    double p50Ms = 0;
    double p99Ms = 0;
};

SagaLatency sagaLatency(const ConnectionSettings &db)
{
    auto session = LibpqConnection::open(db);
    if (!session)
        die(session.error().message);
    auto rows = session->query(
        "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), "
        "  percentile_cont(0.99) WITHIN GROUP (ORDER BY ms) FROM ("
        "  SELECT extract(epoch FROM finished_at - created_at) * 1000 AS ms FROM keel.sagas "
        "  WHERE status = 'succeeded' AND kind = 'bench') x");
    if (!rows)
        die(rows.error().message);
    return {rows->value(0, 0).toDouble(), rows->value(0, 1).toDouble()};
}

struct SagaBenchOptions {
    int seconds = 10;
    int rounds = 3;
    int clients = 16;
    int forward = 16;
};

SagaBenchOptions parseOptions(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("keel sagas against pgbench making the same commits on the same server"));
    parser.addHelpOption();
    addRoundOptions(parser);
    parser.addOption({QStringLiteral("clients"),
                      QStringLiteral("Clients posting sagas, and pgbench clients (default 16)."),
                      QStringLiteral("N")});
    parser.addOption({QStringLiteral("forward"),
                      QStringLiteral("The worker's forward threads (default 16)."),
                      QStringLiteral("N")});
    parser.process(app);
    SagaBenchOptions options;
    options.seconds = positiveOption(parser, "seconds", options.seconds);
    options.rounds = positiveOption(parser, "rounds", options.rounds);
    options.clients = positiveOption(parser, "clients", options.clients);
    options.forward = positiveOption(parser, "forward", options.forward);
    return options;
}

// `keel gateway` and `keel worker` on the bench database.
void startKeel(QProcess &gateway, QProcess &worker, const ConnectionSettings &db,
               const SagaBenchOptions &options, int &gatewayPort)
{
    gatewayPort = spawnKeel(gateway,
                            {QStringLiteral("gateway"), QStringLiteral("--db"), db.conninfo(),
                             QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                             QStringLiteral("--threads"), QString::number(options.clients + 2),
                             QStringLiteral("--allow-http")},
                            QStringLiteral("KEEL_HTTP="))
                      .section(u':', -1)
                      .toInt();
    spawnKeel(worker,
              {QStringLiteral("worker"), QStringLiteral("--db"), db.conninfo(),
               QStringLiteral("--forward"), QString::number(options.forward),
               QStringLiteral("--compensate"), QStringLiteral("1"), QStringLiteral("--per-host"),
               QString::number(options.forward), QStringLiteral("--allow-http")},
              QStringLiteral("KEEL_WORKER="));
}

// pgbench's script: the saga steps' definitions keel stored while warming up.
QString referenceScript(const ConnectionSettings &db, const QString &directory)
{
    auto session = LibpqConnection::open(db);
    if (!session)
        die(session.error().message);
    QList<std::pair<QString, QString>> definitions;
    for (int step = 0; step < 2; ++step)
        definitions.append({QStringLiteral("@DEFINITION%1_HEX@").arg(step),
                            scalarOf(*session,
                                     "SELECT definition::text FROM keel.saga_steps WHERE "
                                     "step_index = $1 LIMIT 1",
                                     {QByteArray::number(step)})});
    return fillReferenceScript(QStringLiteral(KEEL_SAGA_BENCH_SCRIPT), *session, definitions,
                               directory);
}

struct SagaRounds {
    std::vector<double> keelRate, stepP50, stepP99, pgRate, ratios;
};

// keel and pgbench in turns, whichever went second last time going first.
SagaRounds compareWithPgbench(const SagaBenchOptions &options, const SagaLoad &load,
                              const ConnectionSettings &referenceDb, const QString &script,
                              const QStringList &variables)
{
    SagaRounds rounds;
    for (int round = 0; round < options.rounds; ++round) {
        const auto runKeel = [&] {
            return sagaLoad(load, options.clients, options.seconds);
        };
        const auto runReference = [&] {
            return pgbench(referenceDb, script, options.clients, options.seconds, variables);
        };
        Run keel, pg;
        if (round % 2 == 0) {
            keel = runKeel();
            pg = runReference();
        } else {
            pg = runReference();
            keel = runKeel();
        }
        rounds.keelRate.push_back(keel.perSecond);
        rounds.stepP50.push_back(keel.p50Ms);
        rounds.stepP99.push_back(keel.p99Ms);
        rounds.pgRate.push_back(pg.perSecond);
        rounds.ratios.push_back(pg.perSecond > 0 ? keel.perSecond / pg.perSecond : 0);
        std::printf("round %d: keel %.1f sagas/s, pgbench %.1f sagas' commits/s, ratio %.2f\n",
                    round + 1, keel.perSecond, pg.perSecond, rounds.ratios.back());
        std::fflush(stdout);
    }
    return rounds;
}

void printFigures(const SagaRounds &rounds, const SagaLatency &latency)
{
    std::printf("\n%14s | %14s | %6s | %12s %12s | %12s %12s\n", "keel sagas/s", "pgbench /s",
                "ratio", "step p50 ms", "step p99 ms", "saga p50 ms", "saga p99 ms");
    std::printf("%14.1f | %14.1f | %6.2f | %12.2f %12.2f | %12.2f %12.2f\n",
                median(rounds.keelRate), median(rounds.pgRate), median(rounds.ratios),
                median(rounds.stepP50), median(rounds.stepP99), latency.p50Ms, latency.p99Ms);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const SagaBenchOptions options = parseOptions(app);
    auto server = startBenchServer();
    const IssuedMerchant merchant = prepareDatabase(*server->cluster, QStringLiteral("bench"));
    const IssuedMerchant reference = prepareDatabase(*server->cluster, QStringLiteral("reference"));
    const ConnectionSettings db = server->cluster->settings(QStringLiteral("bench"));
    const ConnectionSettings referenceDb = server->cluster->settings(QStringLiteral("reference"));

    InstantParticipant participant;
    HttpServerOptions participantOptions;
    participantOptions.threads = options.forward;
    HttpServer participants(participantOptions, participant);
    if (auto started = participants.start(); !started)
        die(started.error().message);
    QProcess gateway, worker;
    int gatewayPort = 0;
    startKeel(gateway, worker, db, options, gatewayPort);

    std::atomic<qint64> serial{0};
    const SagaLoad load{gatewayPort, merchant.apiKey.toLatin1(), sagaBody(participants.port()), db,
                        &serial};
    std::printf("warming up...\n");
    std::fflush(stdout);
    (void)sagaLoad(load, options.clients, 2);

    QTemporaryDir scripts;
    const QString script = referenceScript(db, scripts.path());
    const QStringList variables{QStringLiteral("merchant=") +
                                QString::number(reference.merchant.id)};
    std::printf("\nkeel sagas vs pgbench: the same 6 commits per 2-step saga, same server, fsync "
                "on, pgbench -M prepared with pipelines; %d client(s), %d forward thread(s), "
                "%d round(s) of %d s, alternating, medians\n\n",
                options.clients, options.forward, options.rounds, options.seconds);
    const SagaRounds rounds = compareWithPgbench(options, load, referenceDb, script, variables);
    printFigures(rounds, sagaLatency(db));
    auditOrDie(db, "keel");
    std::printf("target: ratio >= 0.5\n");
    worker.kill();
    gateway.kill();
    worker.waitForFinished();
    gateway.waitForFinished();
    participants.stop();
    return 0;
}
