#include "MigratedDatabaseTest.h"

#include "core/db/LibpqConnection.h"
#include "ui/HistoryModel.h"
#include "ui/HistoryView.h"
#include "ui/QueryWorker.h"

#include <QAbstractItemModelTester>
#include <QDateTime>
#include <QFile>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace keel;
using keel::test::MigratedDatabaseTest;

class HistoryViewTest : public MigratedDatabaseTest {
protected:
    void SetUp() override
    {
        MigratedDatabaseTest::SetUp();
        // 450 payments, one a second apart, so pages and order are known.
        auto session = LibpqConnection::open(settings());
        ASSERT_TRUE(session.ok());
        Status seeded = session->exec(
            "INSERT INTO keel.merchants (name, api_key_hash) VALUES ('Tea House', sha256('k'));"
            "INSERT INTO keel.charges (public_id, merchant_id, out_trade_no, amount, currency, "
            "source, "
            "  request_hash, created_at) "
            "SELECT 'ch_hist' || lpad(g::text, 6, '0'), m.id, 'T' || g, g * 10, 'CNY', 'tok_visa', "
            "  sha256('r'), now() - make_interval(secs => 1000 - g) "
            "FROM generate_series(1, 450) g, keel.merchants m;"
            "INSERT INTO keel.payment_state (charge_id, state) SELECT id, 'Captured' FROM "
            "keel.charges;"
            "INSERT INTO keel.payment_events (charge_id, from_state, to_state, event_type) "
            "SELECT id, 'Created', 'Authorizing', 'submit' FROM keel.charges;");
        ASSERT_TRUE(seeded.ok()) << qPrintable(seeded.error().message);
        m_worker = std::make_unique<QueryWorker>(settings());
        m_worker->start();
    }
    void TearDown() override
    {
        if (m_worker)
            m_worker->stop();
        DatabaseTest::TearDown();
    }
    std::unique_ptr<QueryWorker> m_worker;
};

TEST_F(HistoryViewTest, ModelPagesThroughEveryPaymentAndPassesTheModelTester)
{
    HistoryModel model(HistoryModel::pagesFrom(m_worker.get()));
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy pages(&model, &HistoryModel::pageLoaded);
    model.search({});
    ASSERT_TRUE(pages.wait(10000));
    EXPECT_EQ(model.rowCount(), HistoryModel::PageSize);
    EXPECT_EQ(model.index(0, HistoryModel::Charge).data().toString(),
              QStringLiteral("ch_hist000450"));
    EXPECT_EQ(model.index(0, HistoryModel::Amount).data().toString(), QStringLiteral("45.00 CNY"));
    // The tester calls fetchMore() too, so a page may already be on its way.
    while (model.rowCount() < 450) {
        if (model.canFetchMore({}))
            model.fetchMore({});
        ASSERT_TRUE(pages.wait(10000)) << model.rowCount();
    }
    EXPECT_FALSE(model.canFetchMore({}));
    ASSERT_EQ(model.rowCount(), 450);
    EXPECT_EQ(model.index(449, HistoryModel::Charge).data().toString(),
              QStringLiteral("ch_hist000001"));
}

TEST_F(HistoryViewTest, SearchTimelineAndExport)
{
    HistoryView view(m_worker.get());
    view.resize(1000, 700);
    view.show();
    QSignalSpy pages(view.model(), &HistoryModel::pageLoaded);
    // Typed and clicked as a person would.
    QTest::keyClicks(view.searchField(), QStringLiteral("T123"));
    QPushButton *searchButton = nullptr;
    for (QPushButton *button : view.findChildren<QPushButton *>())
        if (button->text() == view.tr("&Search"))
            searchButton = button;
    ASSERT_NE(searchButton, nullptr);
    QTest::mouseClick(searchButton, Qt::LeftButton);
    ASSERT_TRUE(pages.wait(10000));
    ASSERT_EQ(view.model()->rowCount(), 1);
    EXPECT_EQ(view.model()->rowAt(0).publicId, QStringLiteral("ch_hist000123"));

    // Clicking the payment loads its trail.
    QSignalSpy timeline(&view, &HistoryView::timelineLoaded);
    auto *table = view.findChild<QTableView *>();
    ASSERT_NE(table, nullptr);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                      table->visualRect(table->model()->index(0, 0)).center());
    ASSERT_TRUE(timeline.wait(10000));
    ASSERT_EQ(view.timeline()->topLevelItemCount(), 1);
    EXPECT_TRUE(view.timeline()->topLevelItem(0)->text(2).contains(
        QLatin1String("Created -> Authorizing")));

    // Export everything the (cleared) search finds.
    view.searchField()->clear();
    view.search();
    ASSERT_TRUE(pages.wait(10000));
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("payments.csv"));
    QSignalSpy exported(&view, &HistoryView::exportFinished);
    view.exportTo(file);
    ASSERT_TRUE(exported.wait(20000));
    EXPECT_EQ(exported.at(0).at(0).toLongLong(), 450);
    QFile csv(file);
    ASSERT_TRUE(csv.open(QIODevice::ReadOnly));
    EXPECT_EQ(csv.readAll().count('\n'), 451);
}

TEST_F(HistoryViewTest, BadFiltersAreNamedAndNothingIsSearched)
{
    HistoryView view(m_worker.get());
    view.show();
    QSignalSpy failed(&view, &HistoryView::failed);
    QSignalSpy pages(view.model(), &HistoryModel::pageLoaded);
    const QList<QLineEdit *> fields = view.findChildren<QLineEdit *>();
    QLineEdit *minAmount = nullptr;
    for (QLineEdit *field : fields)
        if (field->placeholderText().startsWith(QLatin1String("min")))
            minAmount = field;
    ASSERT_NE(minAmount, nullptr);
    minAmount->setText(QStringLiteral("12.50"));
    view.search();
    ASSERT_EQ(failed.size(), 1);
    EXPECT_TRUE(failed.first().first().toString().contains(QLatin1String("min amount")));
    EXPECT_FALSE(pages.wait(500)); // nothing was asked of the database
    EXPECT_EQ(view.model()->rowCount(), 0);
}

TEST_F(HistoryViewTest, ATimeRangeNarrowsTheSearch)
{
    HistoryView view(m_worker.get());
    QSignalSpy pages(view.model(), &HistoryModel::pageLoaded);
    // Payment g was created 1000 - g seconds ago, so ages 550-559 s are g = 441-450.
    const QDateTime now = QDateTime::currentDateTime();
    view.setCreatedRange(now.addSecs(-559 - 1), now.addSecs(-550 + 1));
    view.search();
    ASSERT_TRUE(pages.wait(10000));
    // Ages 550-560 s (±1 s for the time the test took): ten or eleven payments.
    EXPECT_GE(view.model()->rowCount(), 10);
    EXPECT_LE(view.model()->rowCount(), 12);
    for (int row = 0; row < view.model()->rowCount(); ++row) {
        const qint64 age = view.model()->rowAt(row).created.secsTo(now);
        EXPECT_GE(age, 548);
        EXPECT_LE(age, 562);
    }
}
