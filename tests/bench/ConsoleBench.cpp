// keel-console-bench: the console's reads at production scale. Seeds a
// throwaway cluster with --charges payments (default 1,000,000) and 7 days of
// per-minute rollups, then reports the Overview refresh time per range, the
// history page time at the first page and at --depth, the longest GUI-thread
// stall while the real window refreshes and scrolls, and peak RSS.
#include "core/db/Database.h"
#include "core/db/EmbeddedCluster.h"
#include "core/db/Migrator.h"
#include "core/db/PgConnection.h"
#include "core/dev/HistorySeeder.h"
#include "core/read/HistoryQuery.h"
#include "core/read/OverviewQuery.h"
#include "ui/ConsoleSettings.h"
#include "ui/HistoryModel.h"
#include "ui/HistoryView.h"
#include "ui/MainWindow.h"
#include "ui/OverviewView.h"
#include "ui/QueryWorker.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcessEnvironment>
#include <QScrollBar>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <vector>

using namespace keel;

namespace {

[[noreturn]] void die(const QString &message)
{
    std::fprintf(stderr, "keel-console-bench: %s\n", qPrintable(message));
    std::exit(1);
}

double medianMs(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

template <typename F>
double timeMs(F &&work)
{
    QElapsedTimer timer;
    timer.start();
    work();
    return double(timer.nsecsElapsed()) / 1e6;
}

QString peakRss()
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return QStringLiteral("?");
    for (const QByteArray &line : status.readAll().split('\n'))
        if (line.startsWith("VmHWM:"))
            return QString::fromLatin1(line.mid(6).simplified());
    return QStringLiteral("?");
}

// Runs keel-console as its own process and returns its peak RSS in KiB (or -1):
// the figure a user's machine sees, without the seeder and the benchmark.
long consolePeakRssKb(const QStringList &arguments, const QString &configHome)
{
    QList<QByteArray> storage{QByteArrayLiteral(KEEL_CONSOLE_BINARY)};
    for (const QString &argument : arguments)
        storage << argument.toUtf8();
    std::vector<char *> argv;
    for (QByteArray &item : storage)
        argv.push_back(item.data());
    argv.push_back(nullptr);
    QList<QByteArray> environment;
    for (const QString &entry : QProcessEnvironment::systemEnvironment().toStringList())
        if (!entry.startsWith(QLatin1String("XDG_CONFIG_HOME=")))
            environment << entry.toUtf8();
    environment << "XDG_CONFIG_HOME=" + configHome.toUtf8() << "QT_QPA_PLATFORM=offscreen";
    std::vector<char *> envp;
    for (QByteArray &item : environment)
        envp.push_back(item.data());
    envp.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), envp.data()) != 0)
        return -1;
    int status = 0;
    rusage usage{};
    if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return usage.ru_maxrss;
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    // The window starts from default settings, not whatever range or size the
    // person running the benchmark last chose in their own console.
    QTemporaryDir settingsHome;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsHome.path());
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("charges"),
                      QStringLiteral("Payments to seed (default 1000000)."), QStringLiteral("N")});
    parser.addOption({QStringLiteral("depth"), QStringLiteral("Deep page offset (default 100000)."),
                      QStringLiteral("N")});
    parser.process(app);
    const qint64 charges = parser.value(QStringLiteral("charges")).toLongLong() > 0
                               ? parser.value(QStringLiteral("charges")).toLongLong()
                               : 1000000;
    const qint64 depth = parser.value(QStringLiteral("depth")).toLongLong() > 0
                             ? parser.value(QStringLiteral("depth")).toLongLong()
                             : 100000;

    QByteArray pattern = "/tmp/keel-cbench-XXXXXX";
    if (!::mkdtemp(pattern.data()))
        die(QStringLiteral("mkdtemp failed"));
    const QString dir = QString::fromLocal8Bit(pattern);
    auto cluster = EmbeddedCluster::create({dir, 0, true});
    if (!cluster || !(*cluster)->initialize() || !(*cluster)->start() ||
        !(*cluster)->ensureDatabase(QStringLiteral("bench")))
        die(QStringLiteral("cannot start PostgreSQL in %1").arg(dir));
    const ConnectionSettings db = (*cluster)->settings(QStringLiteral("bench"));
    {
        auto connection = Database::connect(db, QStringLiteral("bench-migrate"));
        if (!connection || !Migrator(*connection, *MigrationSource::load()).migrate())
            die(QStringLiteral("migration failed"));
    }
    auto session = PgConnection::open(db);
    if (!session)
        die(session.error().message);
    QElapsedTimer seeding;
    seeding.start();
    auto seeded = HistorySeeder::seed(*session, {charges, 50, 30}, [&](qint64 done) {
        std::fprintf(stderr, "\rseeding %lld/%lld", static_cast<long long>(done),
                     static_cast<long long>(charges));
    });
    if (!seeded)
        die(seeded.error().message);
    // Seven days of rollups from three processes, every metric the Overview reads.
    if (Status rolled = session->exec(
            "INSERT INTO keel.metrics_minute (metric, le_micros, minute, source, count, total) "
            "SELECT m.metric, m.le, t, s, 1 + (random() * 50)::int, (random() * 100000)::bigint "
            "FROM generate_series(date_trunc('minute', now()) - interval '7 days', now(), interval "
            "'1 minute') t, "
            "  (VALUES ('a'), ('b'), ('c')) src(s), (VALUES ('idempotency.new', 0), "
            "('idempotency.replayed', 0), "
            "  ('idempotency.in_flight_conflict', 0), ('idempotency.fingerprint_mismatch', 0), "
            "  ('http.charges_create.2xx', 0), ('http.charges_create.4xx', 0), "
            "('latency.charges_create', 2500), "
            "  ('latency.charges_create', 10000), ('latency.charges_create', 50000), "
            "('volume.capture.USD', 0), "
            "  ('volume.capture.CNY', 0), ('transition.Capturing.Captured', 0)) m(metric, le);"
            // and the folded state totals, one row per state and minute
            "INSERT INTO keel.payment_state_minute (minute, state, payments) "
            "SELECT t, s, 1000 + (random() * 100000)::int FROM generate_series(date_trunc("
            "'minute', now()) - interval '7 days', now(), interval '1 minute') t, "
            "unnest(ARRAY['Authorizing', 'Authorized', 'Capturing', 'Captured', "
            "'Refunding', 'Refunded', 'Failed']) s ON CONFLICT DO NOTHING;"
            "ANALYZE");
        !rolled)
        die(rolled.error().message);
    std::fprintf(stderr, "\rseeded %lld payments and 7 days of rollups in %.0f s\n",
                 static_cast<long long>(*seeded), double(seeding.elapsed()) / 1000.0);

    {
        auto connection = Database::connect(db, QStringLiteral("bench"));
        if (!connection)
            die(connection.error().message);
        std::printf(
            "\nkeel-console-bench: %lld payments, 7 days of rollups (3 sources), medians of 5\n\n",
            static_cast<long long>(*seeded));
        std::printf("overview refresh   ");
        const std::pair<const char *, qint64> ranges[] = {
            {"15m", 900}, {"1h", 3600}, {"6h", 21600}, {"24h", 86400}, {"7d", 604800}};
        for (const auto &[label, seconds] : ranges) {
            std::vector<double> times;
            for (int i = 0; i < 5; ++i)
                times.push_back(timeMs([&, s = seconds] {
                    if (!OverviewQuery::load(*connection, s, QDateTime::currentSecsSinceEpoch()))
                        die(QStringLiteral("overview query failed"));
                }));
            std::printf("%s %.1f ms   ", label, medianMs(times));
        }
        std::printf("\n");

        std::vector<double> first;
        for (int i = 0; i < 5; ++i)
            first.push_back(
                timeMs([&] { (void)HistoryQuery::page(*connection, {}, std::nullopt, 200); }));
        std::optional<HistoryCursor> cursor;
        for (qint64 walked = 0; walked < depth; walked += 1000)
            cursor = HistoryQuery::page(*connection, {}, cursor, 1000)->next;
        std::vector<double> deep;
        for (int i = 0; i < 5; ++i)
            deep.push_back(timeMs([&] { (void)HistoryQuery::page(*connection, {}, cursor, 200); }));
        std::printf("history page       first %.2f ms   at depth %lld %.2f ms   ratio %.2f\n",
                    medianMs(first), static_cast<long long>(depth), medianMs(deep),
                    medianMs(deep) / medianMs(first));
    }
    Database::closeThreadConnections();

    // The real window: a 2 ms heartbeat on the GUI thread measures how long
    // the event loop is kept from running while views refresh and scroll.
    QueryWorker worker(db);
    worker.start();
    ConsoleSettings settings;
    MainWindow window(&worker, &settings);
    window.resize(1280, 800);
    window.show();
    qint64 longestStallUs = 0;
    int stallStep = 0;
    int step = -4;
    QElapsedTimer beat;
    beat.start();
    QTimer heartbeat;
    QObject::connect(&heartbeat, &QTimer::timeout, &heartbeat, [&] {
        const qint64 stall = beat.nsecsElapsed() / 1000 - 2000;
        if (stall > longestStallUs) {
            longestStallUs = stall;
            stallStep = step;
        }
        beat.restart();
    });
    // Measured once the window has painted and settled: start-up (fonts,
    // first layout) is not a refresh stall.
    QTimer::singleShot(1500, &heartbeat, [&] {
        beat.restart();
        heartbeat.start(2);
    });
    QTimer driver;
    QObject::connect(&driver, &QTimer::timeout, &driver, [&] {
        ++step;
        if (step <= 0)
            return;
        if (step <= 5) {
            static const qint64 seconds[] = {900, 3600, 21600, 86400, 604800};
            window.overview()->setRangeSeconds(seconds[step - 1]); // refreshes
        } else if (step == 6) {
            window.showView(QStringLiteral("history"));
            window.history()->search();
        } else if (step < 30) {
            auto *table = window.history()->findChild<QTableView *>();
            table->verticalScrollBar()->setValue(
                table->verticalScrollBar()->maximum()); // fetch more
        } else {
            QApplication::quit();
        }
    });
    driver.start(400);
    QApplication::exec();
    worker.stop();
    std::printf("GUI thread         longest stall %.1f ms while refreshing all ranges and "
                "scrolling to %d rows "
                "(during step %d: 1-5 ranges, 6 history search, 7+ scrolling)\n",
                double(longestStallUs) / 1000.0, window.history()->model()->rowCount(), stallStep);
    std::printf("bench peak RSS     %s (benchmark process: seeder, window and worker)\n",
                qPrintable(peakRss()));
    // The console on its own: the Overview over 7 days, then a history search
    // with a payment's timeline, each rendered to a file by keel-console itself.
    {
        QTemporaryDir config;
        QDir(config.path()).mkpath(QStringLiteral("keel"));
        QFile conf(config.filePath(QStringLiteral("keel/keel-console.conf")));
        if (conf.open(QIODevice::WriteOnly))
            conf.write("[overview]\nrangeSeconds=604800\n");
        conf.close();
        long peak = -1;
        for (const char *view : {"overview", "history"}) {
            const long kb = consolePeakRssKb(
                {QStringLiteral("--db"), db.conninfo(), QStringLiteral("--view"),
                 QString::fromLatin1(view), QStringLiteral("--screenshot"),
                 config.filePath(QString::fromLatin1(view) + QStringLiteral(".png"))},
                config.path());
            if (kb < 0) {
                std::printf("console peak RSS   keel-console --view %s failed\n", view);
                peak = -1;
                break;
            }
            peak = std::max(peak, kb);
        }
        if (peak >= 0)
            std::printf("console peak RSS   %.1f MB (keel-console process: 7-day Overview, then "
                        "history search and timeline)\n",
                        double(peak) / 1024.0);
    }
    (void)(*cluster)->stop();
    QDir(dir).removeRecursively();
    return 0;
}
