// keel-console-bench: the console's reads at production scale. Seeds a
// throwaway cluster with --charges payments (default 1,000,000) and 7 days of
// per-minute rollups, then reports the Overview refresh time per range, the
// history page time at the first page and at --depth; then 100,000 sagas,
// 10,000 suspense cases and 1,000,000 outbox rows (OperationsSeed), with the
// sagas, suspense and parked lists' first page against a deep one and the
// operations refresh times; the longest GUI-thread stall while the real
// window refreshes, scrolls and pages every list; and peak RSS.
#include "BenchSupport.h"
#include "OperationsSeed.h"
#include "core/db/LibpqConnection.h"
#include "core/db/Migrator.h"
#include "core/db/QtSqlConnections.h"
#include "core/metrics/Metrics.h"
#include "core/payment/PaymentState.h"
#include "core/read/HistoryQuery.h"
#include "core/read/OverviewQuery.h"
#include "devkit/servers/EmbeddedCluster.h"
#include "devkit/sim/HistorySeeder.h"
#include "ui/ChartPanel.h"
#include "ui/ConsoleSettings.h"
#include "ui/HistoryModel.h"
#include "ui/HistoryView.h"
#include "ui/MainWindow.h"
#include "ui/OutboxView.h"
#include "ui/OverviewView.h"
#include "ui/QueryWorker.h"
#include "ui/SagasView.h"
#include "ui/SuspenseView.h"

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

#include "ui/QCustomPlotInclude.h"

#include <QPushButton>
#include <QTableWidget>

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <vector>

using namespace keel;

namespace {

using bench::die;

double medianMs(std::vector<double> values)
{
    return bench::median(std::move(values));
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

// Seven days of rollups from three processes, written the way the gateway's
// RollupBuffer writes them: every endpoint with every status class and every
// latency bucket, every idempotency outcome, every whitelisted transition,
// postings and volumes per currency.
void seedRollups(LibpqConnection &session)
{
    const QStringList endpoints{QStringLiteral("charges_create"),  QStringLiteral("charges_get"),
                                QStringLiteral("charges_capture"), QStringLiteral("refunds_create"),
                                QStringLiteral("refunds_get"),     QStringLiteral("healthz"),
                                QStringLiteral("metrics"),         QStringLiteral("other")};
    QStringList rows; // (metric, le_micros)
    for (const char *outcome :
         {"new", "replayed", "in_flight_conflict", "fingerprint_mismatch", "recovered"})
        rows << QStringLiteral("('idempotency.%1', 0)").arg(QLatin1String(outcome));
    QList<qint64> bounds = Metrics::bucketBounds();
    bounds << std::numeric_limits<qint64>::max();
    for (const QString &endpoint : endpoints) {
        for (const char *status : {"2xx", "4xx", "5xx"})
            rows << QStringLiteral("('http.%1.%2', 0)").arg(endpoint, QLatin1String(status));
        for (const qint64 bound : std::as_const(bounds))
            rows << QStringLiteral("('latency.%1', %2)").arg(endpoint).arg(bound);
    }
    constexpr int States = int(PaymentState::Canceled) + 1;
    for (int from = 0; from < States; ++from)
        for (int to = 0; to < States; ++to)
            if (transitionAllowed(PaymentState(from), PaymentState(to)))
                rows << QStringLiteral("('transition.%1.%2', 0)")
                            .arg(stateName(PaymentState(from)), stateName(PaymentState(to)));
    for (const char *kind : {"capture", "refund"}) {
        rows << QStringLiteral("('posting.%1', 0)").arg(QLatin1String(kind));
        for (const char *currency : {"USD", "CNY", "EUR", "JPY"})
            rows << QStringLiteral("('volume.%1.%2', 0)")
                        .arg(QLatin1String(kind), QLatin1String(currency));
    }
    const QByteArray sql =
        "INSERT INTO keel.metrics_minute (metric, le_micros, minute, source, count, total) "
        "SELECT m.metric, m.le, t, src.s, 1 + (random() * 50)::int, (random() * 100000)::bigint "
        "FROM generate_series(date_trunc('minute', now()) - interval '7 days', now(), "
        "  interval '1 minute') t, (VALUES ('host-a:1'), ('host-b:2'), ('host-c:3')) src(s), "
        "(VALUES " +
        rows.join(QStringLiteral(", ")).toLatin1() +
        ") m(metric, le);"
        // and the folded state totals, one row per state and minute
        "INSERT INTO keel.payment_state_minute (minute, state, payments) "
        "SELECT t, s, 1000 + (random() * 100000)::int FROM generate_series(date_trunc("
        "'minute', now()) - interval '7 days', now(), interval '1 minute') t, "
        "unnest(ARRAY['Authorizing', 'Authorized', 'Capturing', 'Captured', "
        "'Refunding', 'Refunded', 'Failed']) s ON CONFLICT DO NOTHING;"
        // what the gateways' housekeeping folds for the long ranges
        "SELECT keel.fold_metric_slots()";
    if (Status rolled = session.exec(sql); !rolled)
        die(rolled.error().message);
    std::fprintf(stderr, "seeded %lld rollup series\n", static_cast<long long>(rows.size()));
}

// Money parked in the suspense accounts over the week: balanced postings from
// merchants' payables, spread over seven days, as compensation would park it.
void seedSuspense(LibpqConnection &session, int postings)
{
    if (Status parked = session.exec(
            "WITH picked AS (SELECT c.id, c.currency, c.amount, c.merchant_id, "
            "    now() - g * (interval '7 days' / " +
            QByteArray::number(postings) + ") AS at FROM generate_series(1, " +
            QByteArray::number(postings) +
            ") g JOIN keel.charges c ON c.id = g), "
            "t AS (INSERT INTO keel.ledger_transactions (kind, charge_id, created_at) "
            "  SELECT 'suspense_in', id, at FROM picked RETURNING id, charge_id, created_at) "
            "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount, "
            "  created_at) "
            "SELECT t.id, a.id, p.currency, CASE WHEN a.kind = 'suspense' THEN -p.amount "
            "  ELSE p.amount END, t.created_at "
            "FROM t JOIN picked p ON p.id = t.charge_id JOIN keel.ledger_accounts a "
            "  ON a.currency = p.currency AND (a.kind = 'suspense' OR a.code = "
            "  'merchant_payable:' || p.merchant_id || ':' || p.currency); ANALYZE");
        !parked)
        die(parked.error().message);
}

// Every refresh must have found what was seeded, or its time means nothing.
void checkOverview(const OverviewData &data, const char *label)
{
    const auto filled = [&](const QString &metric) {
        for (const qint64 value : data.series(metric))
            if (value > 0)
                return true;
        return false;
    };
    if (!filled(QStringLiteral("idempotency.new")) ||
        !filled(QStringLiteral("transition.Capturing.Captured")) || data.p99Micros.isEmpty() ||
        data.captured.isEmpty() || data.refunded.isEmpty() || data.stateLevels.size() < 7 ||
        data.suspenseBalances.isEmpty() || data.suspenseLevels.isEmpty())
        die(QStringLiteral("the %1 Overview is missing seeded data").arg(QLatin1String(label)));
}

// Opens each operations list, refreshes it and asks for five more pages.
// A step that returns false is tried again on the next tick: Load more is
// disabled while the previous page is on its way.
std::vector<std::function<bool()>> operationSteps(MainWindow &window)
{
    std::vector<std::function<bool()>> steps;
    const auto paged = [&steps](const std::function<void()> &open, QPushButton *more) {
        steps.push_back([open] {
            open();
            return true;
        });
        for (int page = 0; page < 5; ++page)
            steps.push_back([more] {
                if (!more->isEnabled())
                    return false;
                more->click();
                return true;
            });
    };
    paged(
        [&window] {
            window.showView(QStringLiteral("sagas"));
            window.sagas()->search();
        },
        window.sagas()->moreButton());
    paged(
        [&window] {
            window.showView(QStringLiteral("suspense"));
            window.suspense()->refresh();
        },
        window.suspense()->moreButton());
    paged(
        [&window] {
            window.showView(QStringLiteral("outbox"));
            window.outbox()->refresh();
        },
        window.outbox()->moreMessagesButton());
    return steps;
}

struct WindowRun {
    std::array<int, 3> operationRows{}; // sagas, cases, parked messages listed at the end
    qint64 longestStallUs = 0;
    // The longest stall in each phase: Overview ranges, history, operations lists.
    std::array<qint64, 3> phaseStallUs{};
    int phase = 0;
    std::vector<double> refreshDrawnMs; // per range, from asking to the last chart drawn
    int rows = 0;
};

// A 2 ms heartbeat on the GUI thread: each beat that comes late records how
// long the event loop was kept from running, overall and in the current phase.
void startHeartbeat(QTimer &heartbeat, QElapsedTimer &beat, WindowRun &run)
{
    QObject::connect(&heartbeat, &QTimer::timeout, &heartbeat, [&] {
        const qint64 stall = beat.nsecsElapsed() / 1000 - 2000;
        run.longestStallUs = std::max(run.longestStallUs, stall);
        run.phaseStallUs[size_t(run.phase)] = std::max(run.phaseStallUs[size_t(run.phase)], stall);
        beat.restart();
    });
    // Measured once the window has painted and settled: start-up (fonts,
    // first layout) is not a refresh stall.
    QTimer::singleShot(1500, &heartbeat, [&] {
        beat.restart();
        heartbeat.start(2);
    });
}

// The SRE and settlement lists: each opened, refreshed and paged five times
// with Load more, one step every 300 ms; then the window closes.
void walkOperationLists(QTimer &stepper, MainWindow &window, WindowRun &run)
{
    auto steps = std::make_shared<std::vector<std::function<bool()>>>(operationSteps(window));
    auto next = std::make_shared<std::pair<size_t, int>>(0, 0); // step, retries
    QObject::connect(&stepper, &QTimer::timeout, &stepper, [&window, &run, steps, next] {
        auto &[step, retries] = *next;
        if (step == steps->size()) {
            run.operationRows = {window.sagas()->list()->rowCount(),
                                 window.suspense()->queue()->rowCount(),
                                 window.outbox()->messages()->rowCount()};
            QApplication::quit();
            return;
        }
        if ((*steps)[step]() || ++retries > 30) {
            ++step;
            retries = 0;
        }
    });
}

// The real window: while the heartbeat runs, the Overview refreshes every
// range (each timed until every chart has replotted), the history view
// searches and scrolls, and the operations lists are paged.
WindowRun measureWindow(const ConnectionSettings &db)
{
    WindowRun run;
    QueryWorker worker(db);
    worker.start();
    ConsoleSettings settings;
    MainWindow window(&worker, &settings);
    window.resize(1280, 800);
    window.show();
    QElapsedTimer beat, refreshing;
    QTimer heartbeat, scroller, stepper;
    startHeartbeat(heartbeat, beat, run);
    walkOperationLists(stepper, window, run);
    static const qint64 ranges[] = {900, 3600, 21600, 86400, 604800};
    size_t nextRange = 0;
    int replotsDue = 0;
    int scrolls = 0;
    // Each range is asked for once the previous one is drawn; then the
    // history view searches and scrolls.
    const auto askNextRange = [&] {
        if (nextRange < std::size(ranges)) {
            replotsDue = int(window.overview()->charts().size());
            refreshing.start();
            window.overview()->setRangeSeconds(ranges[nextRange++]); // refreshes if it changed
            window.overview()->refresh(); // does nothing if that refresh is running
            return;
        }
        window.showView(QStringLiteral("history"));
        window.history()->search();
        run.phase = 1;
        scroller.start(400);
    };
    QObject::connect(&scroller, &QTimer::timeout, &scroller, [&] {
        if (++scrolls > 23) {
            scroller.stop();
            run.phase = 2;
            stepper.start(300);
            return;
        }
        auto *table = window.history()->findChild<QTableView *>();
        table->verticalScrollBar()->setValue(table->verticalScrollBar()->maximum()); // fetch more
    });
    for (ChartPanel *chart : window.overview()->charts())
        QObject::connect(chart->plot(), &QCustomPlot::afterReplot, chart, [&] {
            if (replotsDue > 0 && --replotsDue == 0) {
                run.refreshDrawnMs.push_back(double(refreshing.nsecsElapsed()) / 1e6);
                QTimer::singleShot(300, &window, askNextRange);
            }
        });
    QObject::connect(window.overview(), &OverviewView::refreshFailed, &window,
                     [](const QString &message) { die(message); });
    QTimer::singleShot(2500, &window, askNextRange);
    QApplication::exec();
    worker.stop();
    run.rows = window.history()->model()->rowCount();
    return run;
}

struct ConsoleBenchOptions {
    qint64 charges = 1000000;
    qint64 depth = 100000;
};

ConsoleBenchOptions parseOptions(const QApplication &app)
{
    QCommandLineParser parser;
    parser.addHelpOption();
    parser.addOption({QStringLiteral("charges"),
                      QStringLiteral("Payments to seed (default 1000000)."), QStringLiteral("N")});
    parser.addOption({QStringLiteral("depth"), QStringLiteral("Deep page offset (default 100000)."),
                      QStringLiteral("N")});
    parser.process(app);
    ConsoleBenchOptions options;
    if (const qint64 charges = parser.value(QStringLiteral("charges")).toLongLong(); charges > 0)
        options.charges = charges;
    if (const qint64 depth = parser.value(QStringLiteral("depth")).toLongLong(); depth > 0)
        options.depth = depth;
    return options;
}

// A database with keel's schema on the durable bench server.
ConnectionSettings migratedDatabase(bench::BenchServer &server)
{
    if (!server.cluster->ensureDatabase(QStringLiteral("bench")))
        die(QStringLiteral("cannot create the bench database in %1").arg(server.dataDirectory));
    const ConnectionSettings db = server.cluster->settings(QStringLiteral("bench"));
    auto connection = QtSqlConnections::connect(db, QStringLiteral("bench-migrate"));
    if (!connection || !Migrator(*connection, *MigrationSource::load()).migrate())
        die(QStringLiteral("migration failed"));
    return db;
}

// Payments, seven days of rollups, suspense and the operations lists; the
// number of payments seeded.
qint64 seedConsoleData(LibpqConnection &session, qint64 charges, const OperationsScale &operations)
{
    QElapsedTimer seeding;
    seeding.start();
    auto seeded = HistorySeeder::seed(session, {charges, 50, 30}, [&](qint64 done) {
        std::fprintf(stderr, "\rseeding %lld/%lld", static_cast<long long>(done),
                     static_cast<long long>(charges));
    });
    if (!seeded)
        die(seeded.error().message);
    seedRollups(session);
    seedSuspense(session, 5000);
    seedOperations(session, operations);
    std::fprintf(stderr, "\rseeded %lld payments, 7 days of rollups and suspense in %.0f s\n",
                 static_cast<long long>(*seeded), double(seeding.elapsed()) / 1000.0);
    return *seeded;
}

void measureOverviewQueries(QSqlDatabase &connection)
{
    std::printf("overview refresh   ");
    const std::pair<const char *, qint64> ranges[] = {
        {"15m", 900}, {"1h", 3600}, {"6h", 21600}, {"24h", 86400}, {"7d", 604800}};
    for (const auto &[label, seconds] : ranges) {
        std::vector<double> times;
        for (int i = 0; i < 5; ++i)
            times.push_back(timeMs([&, s = seconds, l = label] {
                auto data = OverviewQuery::load(connection, s, QDateTime::currentSecsSinceEpoch());
                if (!data)
                    die(QStringLiteral("overview query failed: %1").arg(data.error().message));
                checkOverview(*data, l);
            }));
        std::printf("%s %.1f ms   ", label, medianMs(times));
    }
    std::printf("\n");
}

void measureHistoryPages(QSqlDatabase &connection, qint64 depth)
{
    const auto page = [&](const std::optional<HistoryCursor> &after) {
        auto found = HistoryQuery::page(connection, {}, after, 200);
        if (!found || found->rows.size() != 200 || !found->next)
            die(QStringLiteral("a history page did not come back full"));
    };
    std::vector<double> first;
    for (int i = 0; i < 5; ++i)
        first.push_back(timeMs([&] { page(std::nullopt); }));
    std::optional<HistoryCursor> cursor;
    for (qint64 walked = 0; walked < depth; walked += 1000)
        cursor = HistoryQuery::page(connection, {}, cursor, 1000)->next;
    std::vector<double> deep;
    for (int i = 0; i < 5; ++i)
        deep.push_back(timeMs([&] { page(cursor); }));
    std::printf("history page       first %.2f ms   at depth %lld %.2f ms   ratio %.2f\n",
                medianMs(first), static_cast<long long>(depth), medianMs(deep),
                medianMs(deep) / medianMs(first));
}

// The queries the console runs, timed on their own (no window).
void measureQueries(const ConnectionSettings &db, LibpqConnection &session, qint64 seeded,
                    qint64 depth, const OperationsScale &operations)
{
    {
        auto connection = QtSqlConnections::connect(db, QStringLiteral("bench"));
        if (!connection)
            die(connection.error().message);
        std::printf(
            "\nkeel-console-bench: %lld payments, 7 days of rollups (3 sources), medians of 5\n\n",
            static_cast<long long>(seeded));
        measureOverviewQueries(*connection);
        measureHistoryPages(*connection, depth);
        measureOperationLists(session, *connection, operations);
    }
    QtSqlConnections::closeThreadConnections();
}

// Five runs of the real window, checked to have done all their work.
struct WindowFigures {
    std::vector<double> stalls;
    std::array<std::vector<double>, 3> phaseStalls;
    std::vector<std::vector<double>> drawn = std::vector<std::vector<double>>(5);
    int rows = 0;
};

void checkWindowRun(int run, const WindowRun &measured, int rows)
{
    if (measured.operationRows != std::array<int, 3>{1200, 1200, 3000})
        die(QStringLiteral("window run %1 listed %2 sagas, %3 cases, %4 parked messages "
                           "(expected six pages of each)")
                .arg(run)
                .arg(measured.operationRows[0])
                .arg(measured.operationRows[1])
                .arg(measured.operationRows[2]));
    if (measured.refreshDrawnMs.size() != 5 || rows < 2000)
        die(QStringLiteral("window run %1 did not refresh every range and scroll (%2 ranges "
                           "drawn, %3 rows)")
                .arg(run)
                .arg(measured.refreshDrawnMs.size())
                .arg(rows));
}

WindowFigures measureWindowFiveTimes(const ConnectionSettings &db)
{
    WindowFigures figures;
    for (int run = 0; run < 5; ++run) {
        const WindowRun measured = measureWindow(db);
        figures.stalls.push_back(double(measured.longestStallUs) / 1000.0);
        for (size_t phase = 0; phase < figures.phaseStalls.size(); ++phase)
            figures.phaseStalls[phase].push_back(double(measured.phaseStallUs[phase]) / 1000.0);
        for (size_t r = 0; r < measured.refreshDrawnMs.size() && r < figures.drawn.size(); ++r)
            figures.drawn[r].push_back(measured.refreshDrawnMs[r]);
        figures.rows = figures.rows == 0 ? measured.rows : std::min(figures.rows, measured.rows);
        checkWindowRun(run, measured, figures.rows);
    }
    return figures;
}

void printWindowFigures(const WindowFigures &figures)
{
    const auto &drawn = figures.drawn;
    std::printf("overview refresh, drawn  15m %.1f   1h %.1f   6h %.1f   24h %.1f   7d %.1f ms "
                "(query, charts and their replot, in the window; medians of 5)\n",
                medianMs(drawn[0]), medianMs(drawn[1]), medianMs(drawn[2]), medianMs(drawn[3]),
                medianMs(drawn[4]));
    std::printf("GUI thread         longest stall median %.1f ms, max %.1f ms over 5 runs of "
                "refreshing every range, scrolling history to at least %d rows, and paging the "
                "sagas, suspense and parked lists six pages deep\n",
                medianMs(figures.stalls),
                *std::max_element(figures.stalls.begin(), figures.stalls.end()), figures.rows);
    std::printf("                   by phase (medians): overview %.1f ms   history %.1f ms   "
                "operations lists %.1f ms\n",
                medianMs(figures.phaseStalls[0]), medianMs(figures.phaseStalls[1]),
                medianMs(figures.phaseStalls[2]));
    std::printf("bench peak RSS     %s (benchmark process: seeder, window and worker)\n",
                qPrintable(peakRss()));
}

// The console on its own: the Overview over 7 days, then each other view,
// each rendered to a file by keel-console itself; its largest peak RSS.
void measureConsoleRss(const ConnectionSettings &db)
{
    QTemporaryDir config;
    QDir(config.path()).mkpath(QStringLiteral("keel"));
    QFile conf(config.filePath(QStringLiteral("keel/keel-console.conf")));
    if (conf.open(QIODevice::WriteOnly))
        conf.write("[overview]\nrangeSeconds=604800\n");
    conf.close();
    long peak = -1;
    for (const char *view : {"overview", "history", "sagas", "suspense", "outbox"}) {
        const long kb =
            consolePeakRssKb({QStringLiteral("--db"), db.conninfo(), QStringLiteral("--view"),
                              QString::fromLatin1(view), QStringLiteral("--screenshot"),
                              config.filePath(QString::fromLatin1(view) + QStringLiteral(".png"))},
                             config.path());
        if (kb < 0) {
            std::printf("console peak RSS   keel-console --view %s failed\n", view);
            return;
        }
        peak = std::max(peak, kb);
    }
    std::printf("console peak RSS   %.1f MB (keel-console process, largest of: 7-day "
                "Overview; history search and timeline; sagas, suspense and outbox "
                "views with one item open)\n",
                double(peak) / 1024.0);
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // each figure as soon as it is measured
    // The window starts from default settings, not whatever range or size the
    // person running the benchmark last chose in their own console.
    QTemporaryDir settingsHome;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsHome.path());
    const ConsoleBenchOptions options = parseOptions(app);

    const std::unique_ptr<bench::BenchServer> server = bench::startBenchServer();
    const ConnectionSettings db = migratedDatabase(*server);
    auto session = LibpqConnection::open(db);
    if (!session)
        die(session.error().message);
    const OperationsScale operations;
    const qint64 seeded = seedConsoleData(*session, options.charges, operations);
    measureQueries(db, *session, seeded, options.depth, operations);
    printWindowFigures(measureWindowFiveTimes(db));
    measureConsoleRss(db);
    return 0;
}
