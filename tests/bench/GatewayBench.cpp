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
#include "core/db/Database.h"
#include "core/db/EmbeddedCluster.h"
#include "core/db/Migrator.h"
#include "core/db/PgConnection.h"
#include "core/db/ServerBinaries.h"
#include "core/ledger/Ledger.h"
#include "core/merchant/MerchantStore.h"
#include "core/net/HttpClient.h"

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

using namespace keel;

namespace {

struct Run {
    double perSecond = 0;
    double p50Ms = 0;
    double p99Ms = 0;
    qint64 count = 0;
};

double percentile(std::vector<qint64> &micros, double p)
{
    if (micros.empty())
        return 0;
    std::sort(micros.begin(), micros.end());
    const size_t index = std::min(micros.size() - 1, size_t(p * double(micros.size())));
    return double(micros[index]) / 1000.0;
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values.empty() ? 0 : values[values.size() / 2];
}

[[noreturn]] void die(const QString &message)
{
    std::fprintf(stderr, "keel-bench: %s\n", qPrintable(message));
    std::exit(1);
}

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

Run pgbench(const QString &program, const ConnectionSettings &db, const QString &script,
            int clients, int seconds, const QStringList &variables)
{
    QTemporaryDir logs;
    QStringList arguments{QStringLiteral("-n"),
                          QStringLiteral("-M"),
                          QStringLiteral("prepared"),
                          QStringLiteral("-c"),
                          QString::number(clients),
                          QStringLiteral("-j"),
                          QString::number(std::min(clients, 2)),
                          QStringLiteral("-T"),
                          QString::number(seconds),
                          QStringLiteral("-f"),
                          script,
                          QStringLiteral("-l"),
                          QStringLiteral("--log-prefix=") + logs.filePath(QStringLiteral("tx")),
                          QStringLiteral("-h"),
                          db.value(QStringLiteral("host")),
                          QStringLiteral("-p"),
                          db.value(QStringLiteral("port")),
                          QStringLiteral("-U"),
                          db.value(QStringLiteral("user")),
                          db.value(QStringLiteral("dbname"))};
    for (const QString &variable : variables)
        arguments << QStringLiteral("-D") << variable;
    QProcess process;
    process.start(program, arguments);
    if (!process.waitForFinished((seconds + 60) * 1000) || process.exitCode() != 0)
        die(QStringLiteral("pgbench failed: %1")
                .arg(QString::fromLocal8Bit(process.readAllStandardError())));
    const QString out = QString::fromLocal8Bit(process.readAllStandardOutput());
    static const QRegularExpression tps(QStringLiteral("tps = ([0-9.]+) \\(without initial"));
    static const QRegularExpression failed(
        QStringLiteral("number of failed transactions: ([0-9]+)"));
    const QRegularExpressionMatch rate = tps.match(out);
    const QRegularExpressionMatch failures = failed.match(out);
    if (!rate.hasMatch() || !failures.hasMatch())
        die(QStringLiteral("cannot read pgbench's output: %1").arg(out));
    if (failures.captured(1).toLongLong() > 0)
        die(QStringLiteral("pgbench had %1 failed transactions").arg(failures.captured(1)));
    Run run;
    run.perSecond = rate.captured(1).toDouble();
    std::vector<qint64> all;
    for (const QString &file : QDir(logs.path()).entryList(QDir::Files)) {
        QFile log(QDir(logs.path()).filePath(file));
        if (!log.open(QIODevice::ReadOnly))
            continue;
        while (!log.atEnd()) {
            const QList<QByteArray> fields = log.readLine().split(' ');
            if (fields.size() >= 3)
                all.push_back(fields.at(2).toLongLong());
        }
    }
    run.count = qint64(all.size());
    if (run.count == 0)
        die(QStringLiteral("pgbench logged no transactions"));
    run.p50Ms = percentile(all, 0.50);
    run.p99Ms = percentile(all, 0.99);
    return run;
}

// A database on the bench server with keel's schema and one merchant.
IssuedMerchant prepareDatabase(EmbeddedCluster &cluster, const QString &name)
{
    if (auto made = cluster.ensureDatabase(name); !made)
        die(made.error().message);
    const ConnectionSettings db = cluster.settings(name);
    {
        auto connection = Database::connect(db, QStringLiteral("keel-bench"));
        if (!connection)
            die(connection.error().message);
        if (auto applied = Migrator(*connection, *MigrationSource::load()).migrate(); !applied)
            die(applied.error().message);
    }
    Database::closeThreadConnections();
    auto session = PgConnection::open(db);
    if (!session)
        die(session.error().message);
    auto merchant = MerchantStore(*session).create(QStringLiteral("Bench"), {});
    if (!merchant)
        die(merchant.error().message);
    if (auto ready = Ledger(*session).prepareAccounts(merchant->merchant.id, QStringLiteral("USD"));
        !ready)
        die(ready.error().message);
    return *merchant;
}

QString scalarOf(PgConnection &session, const QByteArray &sql, const QByteArrayList &params = {})
{
    auto rows = session.query(sql, params);
    if (!rows || rows->size() != 1 || rows->isNull(0, 0))
        die(QStringLiteral("bench query found nothing: %1").arg(QString::fromLatin1(sql)));
    return rows->text(0, 0);
}

// The reference script with the rows keel stored during warm-up filled in.
QString writeReferenceScript(PgConnection &keelSession, const QString &directory)
{
    QFile source(QStringLiteral(KEEL_BENCH_SCRIPT));
    if (!source.open(QIODevice::ReadOnly))
        die(QStringLiteral("cannot read %1").arg(source.fileName()));
    QString script = QString::fromUtf8(source.readAll());
    const auto hex = [](const QString &text) { return QString::fromLatin1(text.toUtf8().toHex()); };
    script.replace(QStringLiteral("@RESPONSE_BODY_HEX@"),
                   scalarOf(keelSession, "SELECT encode(response_body, 'hex') FROM "
                                         "keel.idempotency_keys WHERE status = 'done' LIMIT 1"));
    script.replace(QStringLiteral("@RESPONSE_HEADERS_HEX@"),
                   hex(scalarOf(keelSession, "SELECT response_headers::text FROM "
                                             "keel.idempotency_keys WHERE status = 'done' LIMIT 1")));
    script.replace(QStringLiteral("@OUTBOX_PAYLOAD_HEX@"),
                   hex(scalarOf(keelSession, "SELECT payload::text FROM keel.outbox WHERE "
                                             "event_type = 'charge.succeeded' LIMIT 1")));
    // keel names a key's holder host:pid; the same length, without a ':' for pgbench.
    QString holder = QSysInfo::machineHostName() + QStringLiteral("-") +
                     QString::number(QCoreApplication::applicationPid());
    script.replace(QStringLiteral("@LOCKED_BY@"), holder.replace(u':', u'-'));
    QFile target(QDir(directory).filePath(QStringLiteral("charge_writes.sql")));
    if (!target.open(QIODevice::WriteOnly) || target.write(script.toUtf8()) < 0)
        die(QStringLiteral("cannot write %1").arg(target.fileName()));
    return target.fileName();
}

void auditOrDie(const ConnectionSettings &db, const char *what)
{
    auto session = PgConnection::open(db);
    if (!session)
        die(session.error().message);
    auto audit = Ledger::audit(*session);
    if (!audit)
        die(audit.error().message);
    if (!audit->violations.isEmpty())
        die(QStringLiteral("%1's ledger does not add up: %2")
                .arg(QLatin1String(what), audit->violations.join(QStringLiteral("; "))));
    std::printf("%s ledger audited: %lld transactions balance\n", what,
                static_cast<long long>(audit->transactions));
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("keel gateway against pgbench on the same server"));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("seconds"),
                      QStringLiteral("Seconds per measurement (default 10)."),
                      QStringLiteral("S")});
    parser.addOption({QStringLiteral("rounds"),
                      QStringLiteral("Rounds; medians are reported (default 3)."),
                      QStringLiteral("N")});
    parser.addOption({QStringLiteral("clients"), QStringLiteral("Client counts (default 1,16)."),
                      QStringLiteral("LIST")});
    parser.addOption({QStringLiteral("threads"),
                      QStringLiteral("Gateway worker threads (default 16)."), QStringLiteral("N")});
    parser.process(app);
    const int seconds = parser.value(QStringLiteral("seconds")).toInt() > 0
                            ? parser.value(QStringLiteral("seconds")).toInt()
                            : 10;
    const int rounds = parser.value(QStringLiteral("rounds")).toInt() > 0
                           ? parser.value(QStringLiteral("rounds")).toInt()
                           : 3;
    const int threads = parser.value(QStringLiteral("threads")).toInt() > 0
                            ? parser.value(QStringLiteral("threads")).toInt()
                            : 16;
    QList<int> clientCounts;
    for (const QString &part :
         parser.value(QStringLiteral("clients")).split(u',', Qt::SkipEmptyParts))
        clientCounts << part.toInt();
    if (clientCounts.isEmpty())
        clientCounts = {1, 16};

    // A durable server (fsync on): commits cost what they cost in production.
    QByteArray pattern = "/tmp/keel-bench-XXXXXX";
    if (!::mkdtemp(pattern.data()))
        die(QStringLiteral("mkdtemp failed"));
    const QString dataDir = QString::fromLocal8Bit(pattern);
    auto cluster = EmbeddedCluster::create({dataDir, 0, true});
    if (!cluster)
        die(cluster.error().message);
    if (auto initialized = (*cluster)->initialize(); !initialized)
        die(initialized.error().message);
    if (auto started = (*cluster)->start(); !started)
        die(started.error().message);
    const IssuedMerchant merchant = prepareDatabase(**cluster, QStringLiteral("bench"));
    const IssuedMerchant referenceMerchant = prepareDatabase(**cluster, QStringLiteral("reference"));
    const ConnectionSettings db = (*cluster)->settings(QStringLiteral("bench"));
    const ConnectionSettings referenceDb = (*cluster)->settings(QStringLiteral("reference"));
    auto session = PgConnection::open(db);
    if (!session)
        die(session.error().message);
    auto referenceSession = PgConnection::open(referenceDb);
    if (!referenceSession)
        die(referenceSession.error().message);

    QProcess gateway;
    gateway.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    // If the bench dies, so does its gateway.
    gateway.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    gateway.start(QStringLiteral(KEEL_BINARY),
                  {QStringLiteral("gateway"), QStringLiteral("--db"), db.conninfo(),
                   QStringLiteral("--listen"), QStringLiteral("127.0.0.1:0"),
                   QStringLiteral("--threads"), QString::number(threads)});
    int port = 0;
    while (port == 0 && gateway.waitForReadyRead(30000)) {
        while (gateway.canReadLine()) {
            const QString line = QString::fromLocal8Bit(gateway.readLine()).trimmed();
            if (line.startsWith(QLatin1String("KEEL_HTTP=")))
                port = line.section(u':', -1).toInt();
        }
    }
    if (port == 0)
        die(QStringLiteral("keel gateway did not start"));

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
    auto binaries = ServerBinaries::locate();
    if (!binaries)
        die(binaries.error().message);
    QTemporaryDir scripts;
    const QString script = writeReferenceScript(*session, scripts.path());

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
                return pgbench(binaries->program(QStringLiteral("pgbench")), referenceDb, script,
                               clients, seconds, variables);
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
    (void)(*cluster)->stop();
    QDir(dataDir).removeRecursively();
    return 0;
}
