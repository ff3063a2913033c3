#include "MigratedDatabaseTest.h"
#include "MoneyCase.h"

#include "core/db/LibpqConnection.h"
#include "ui/ChartPanel.h"
#include "ui/ConsoleSettings.h"
#include "ui/MainWindow.h"
#include "ui/MessageBanner.h"
#include "ui/OverviewView.h"
#include "ui/QCustomPlotInclude.h"
#include "ui/QueryWorker.h"

#include <QAbstractItemView>
#include <QByteArrayList>
#include <QComboBox>
#include <QDateTime>
#include <QLabel>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>

#include <QTest>

#include <numeric>
#include <tuple>

using namespace keel;
using keel::test::MigratedDatabaseTest;

// The Overview as a person opens it, on a worker of its own.
struct OpenOverview {
    explicit OpenOverview(const ConnectionSettings &settings) : worker(settings), view(&worker)
    {
        worker.start();
        view.resize(1000, 700);
        view.show();
    }
    ~OpenOverview() { worker.stop(); }
    Q_DISABLE_COPY_MOVE(OpenOverview)

    QueryWorker worker;
    OverviewView view;
};

class OverviewViewTest : public MigratedDatabaseTest {
protected:
    void SetUp() override
    {
        MigratedDatabaseTest::SetUp();
        // Settings go to a throwaway place, not the user's.
        qputenv("XDG_CONFIG_HOME", m_config.path().toUtf8());
    }
    // One minute three minutes ago, as the rollups would hold it: returns
    // the minute (seconds since the epoch).
    qint64 seedOneMinute()
    {
        const qint64 minute = (QDateTime::currentSecsSinceEpoch() / 60 - 3) * 60;
        const QByteArray at = "to_timestamp(" + QByteArray::number(minute) + ")";
        // metric, le_micros, count, total
        const QList<std::tuple<const char *, int, int, int>> rows{
            {"idempotency.new", 0, 9, 0},
            {"idempotency.replayed", 0, 3, 0},
            {"latency.charges_create", 5000, 12, 0},
            {"volume.capture.JPY", 0, 2, 4200},
            {"volume.refund.JPY", 0, 1, 700},
            {"transition.Capturing.Captured", 0, 7, 0},
            {"outbox.lag_ms", 0, 2, 9000},
            {"saga.started", 0, 8, 0},
            {"saga.compensating", 0, 2, 0},
            {"saga_step_latency.refund", 5000, 4, 0}};
        QByteArrayList values;
        for (const auto &[metric, le, count, total] : rows)
            values << "('" + QByteArray(metric) + "', " + QByteArray::number(le) + ", " + at +
                          ", 'a', " + QByteArray::number(count) + ", " + QByteArray::number(total) +
                          ")";
        exec("INSERT INTO keel.metrics_minute (metric, le_micros, minute, source, count, total) "
             "VALUES " +
             values.join(", "));
        exec("INSERT INTO keel.payment_state_minute (minute, state, payments) VALUES (" + at +
             ", 'Captured', 1234), (" + at + ", 'Failed', 56)");
        return minute;
    }
    QTemporaryDir m_config;
};

TEST_F(OverviewViewTest, ShowsTheNumbersTheRollupsHold)
{
    const qint64 minute = seedOneMinute();
    OpenOverview open(settings());
    OverviewView &view = open.view;
    QSignalSpy refreshed(&view, &OverviewView::refreshed);
    view.refresh();
    ASSERT_TRUE(refreshed.wait(15000));

    const qsizetype i = view.data().times.indexOf(minute);
    ASSERT_GE(i, 0);
    const QList<ChartPanel *> charts = view.charts();
    ASSERT_EQ(charts.size(), 13);
    // Hit rate 3 / 12, drawn in percent.
    QCPGraph *hits = charts[0]->plot()->graph(0);
    ASSERT_EQ(hits->dataCount(), int(view.data().times.size()));
    EXPECT_DOUBLE_EQ(hits->data()->at(int(i))->value, 25.0);
    // p50 of twelve requests in the (2.5, 5] ms bucket: halfway in, 3.75 ms.
    EXPECT_DOUBLE_EQ(charts[2]->plot()->graph(0)->data()->at(int(i))->value, 3.75);
    // JPY has no minor unit: 4200 minor units are 4200 yen.
    QCPGraph *yen = charts[3]->plot()->graph(0);
    EXPECT_EQ(yen->name(), QStringLiteral("JPY captured"));
    EXPECT_DOUBLE_EQ(yen->data()->at(int(i))->value, 4200.0);
    QCPGraph *yenRefunded = charts[3]->plot()->graph(1);
    EXPECT_EQ(yenRefunded->name(), QStringLiteral("JPY refunded"));
    EXPECT_DOUBLE_EQ(yenRefunded->data()->at(int(i))->value, 700.0);
    // Seven payments reached Captured in that minute.
    EXPECT_DOUBLE_EQ(charts[4]->plot()->graph(2)->data()->at(int(i))->value, 7.0);
    // Payments by state, as the fold recorded them for that minute.
    QCustomPlot *states = charts[5]->plot();
    ASSERT_EQ(states->graphCount(), 2);
    EXPECT_EQ(states->graph(0)->name(), QStringLiteral("Captured"));
    EXPECT_DOUBLE_EQ(states->graph(0)->data()->at(int(i))->value, 1234.0);
    EXPECT_DOUBLE_EQ(states->graph(1)->data()->at(int(i))->value, 56.0);
    EXPECT_EQ(states->yAxis->scaleType(), QCPAxis::stLogarithmic);
    // Two relay reports averaging 4.5 s of lag; 2 of 8 sagas compensated;
    // the step latency line is named with the range's percentiles.
    EXPECT_DOUBLE_EQ(charts[7]->plot()->graph(0)->data()->at(int(i))->value, 4.5);
    EXPECT_DOUBLE_EQ(charts[10]->plot()->graph(0)->data()->at(int(i))->value, 25.0);
    ASSERT_EQ(charts[11]->plot()->graphCount(), 1);
    EXPECT_EQ(charts[11]->plot()->graph(0)->name(),
              QStringLiteral("refund (p50 3.75 · p95 4.88 · p99 4.97 ms)"));
}

// The suspense balance nets money held against money owed: with an owed
// case open, the chart draws each side apart, not the net.
TEST_F(OverviewViewTest, TheSuspenseChartDrawsHeldAndOwedApart)
{
    exec(QByteArray(keel::test::MoneyCaseSql) + keel::test::OwedCaseSql);
    OpenOverview open(settings());
    OverviewView &view = open.view;
    QSignalSpy refreshed(&view, &OverviewView::refreshed);
    view.refresh();
    ASSERT_TRUE(refreshed.wait(15000));

    QCustomPlot *suspense = view.charts().at(6)->plot();
    ASSERT_EQ(suspense->graphCount(), 2);
    EXPECT_EQ(suspense->graph(0)->name(), QStringLiteral("USD held"));
    EXPECT_EQ(suspense->graph(1)->name(), QStringLiteral("USD owed"));
    const int last = suspense->graph(0)->dataCount() - 1;
    ASSERT_GE(last, 0);
    EXPECT_DOUBLE_EQ(suspense->graph(0)->data()->at(last)->value, 176.32);
    EXPECT_DOUBLE_EQ(suspense->graph(1)->data()->at(last)->value, 15.0);
}

TEST_F(OverviewViewTest, ALongerRangePickedWithMouseAndKeyboardStillCountsTheMinute)
{
    seedOneMinute();
    OpenOverview open(settings());
    OverviewView &view = open.view;
    QSignalSpy refreshed(&view, &OverviewView::refreshed);
    view.refresh();
    ASSERT_TRUE(refreshed.wait(15000));

    // A person picks a longer range with the mouse and the keyboard: the
    // Overview reloads with wider buckets, still showing that minute's count.
    auto *range = view.findChild<QComboBox *>();
    ASSERT_NE(range, nullptr);
    const qint64 before = view.data().stepSeconds;
    refreshed.clear();
    QTest::mouseClick(range, Qt::LeftButton);
    ASSERT_TRUE(QTest::qWaitFor([&] { return range->view()->isVisible(); }, 5000));
    QTest::keyClick(range->view(), Qt::Key_End);
    QTest::keyClick(range->view(), Qt::Key_Return);
    ASSERT_TRUE(refreshed.wait(15000));
    EXPECT_EQ(range->currentIndex(), range->count() - 1);
    EXPECT_GT(view.data().stepSeconds, before);
    double captured = 0;
    for (const qint64 value : view.data().series(QStringLiteral("transition.Capturing.Captured")))
        captured += double(value);
    EXPECT_DOUBLE_EQ(captured, 7.0);
}

TEST_F(OverviewViewTest, StatusBarNamesTheAuditorAndTheirRole)
{
    QueryWorker worker(loginAs(QStringLiteral("keel_auditor")));
    worker.start();
    ConsoleSettings settings;
    MainWindow window(&worker, &settings);
    window.show();
    QSignalSpy loaded(&window, &MainWindow::sessionLoaded);
    ASSERT_TRUE(loaded.wait(15000));
    EXPECT_EQ(window.session().keelRoles, QStringList{QStringLiteral("keel_auditor")});
    EXPECT_FALSE(window.session().holds(QStringLiteral("keel_operator")));
    bool shown = false;
    for (QLabel *label : window.statusBar()->findChildren<QLabel *>())
        shown = shown || label->text().contains(QLatin1String("keel_auditor"));
    EXPECT_TRUE(shown);
    worker.stop();
}

TEST_F(OverviewViewTest, ADroppedConnectionRecoversOnTheNextRefresh)
{
    QueryWorker worker(settings());
    worker.start();
    OverviewView view(&worker);
    QSignalSpy refreshed(&view, &OverviewView::refreshed);
    view.refresh();
    ASSERT_TRUE(refreshed.wait(15000));
    // Kill the console's backend, as a failover or an idle timeout would.
    exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
         "WHERE application_name = 'keel-console' AND datname = current_database()");
    QSignalSpy failed(&view, &OverviewView::refreshFailed);
    view.refresh();
    ASSERT_TRUE(refreshed.wait(15000)) << "the next refresh should reconnect";
    EXPECT_EQ(failed.count(), 0);
    worker.stop();
}

// Changes made while the change feed was away (a failover, a restart) were
// announced to no one: when it listens again the Overview catches up at
// once, not at its next poll (30 s while live).
TEST_F(OverviewViewTest, CatchesUpAtOnceWhenTheChangeFeedComesBack)
{
    QueryWorker worker(settings());
    worker.start();
    OverviewView view(&worker);
    QSignalSpy refreshed(&view, &OverviewView::refreshed);
    view.setLiveUpdates(true);
    view.startPolling();
    view.refresh();
    ASSERT_TRUE(refreshed.wait(15000));
    view.setLiveUpdates(false);
    const qint64 minute = (QDateTime::currentSecsSinceEpoch() / 60 - 1) * 60;
    exec("INSERT INTO keel.metrics_minute (metric, le_micros, minute, source, count, total) VALUES "
         "('idempotency.new', 0, to_timestamp(" +
         QByteArray::number(minute) + "), 'while-away', 17, 0)");
    refreshed.clear();
    view.setLiveUpdates(true);
    ASSERT_TRUE(refreshed.wait(10000)) << "no refresh when live updates resumed";
    const QList<qint64> created = view.data().series(QStringLiteral("idempotency.new"));
    EXPECT_EQ(std::accumulate(created.cbegin(), created.cend(), qint64(0)), 17);
    worker.stop();
}
