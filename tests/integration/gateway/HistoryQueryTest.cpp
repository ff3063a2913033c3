#include "GatewayTest.h"

#include "core/db/QtSqlConnections.h"
#include "core/read/HistoryQuery.h"

#include <QBuffer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

using namespace keel;
using keel::test::GatewayTest;

class HistoryQueryTest : public GatewayTest {
protected:
    void SetUp() override
    {
        GatewayTest::SetUp();
        if (HasFatalFailure())
            return;
        startGateway();
        for (int i = 0; i < 25; ++i) {
            const HttpReply reply =
                post("/v1/charges",
                     "amount=" + QByteArray::number(100 * (i + 1)) +
                         "&currency=usd&source=tok_visa&out_trade_no=H-" + QByteArray::number(i),
                     "history-" + QByteArray::number(i));
            ASSERT_EQ(reply.status, 200);
            m_ids << QJsonDocument::fromJson(reply.body)
                         .object()
                         .value(QStringLiteral("id"))
                         .toString();
        }
    }
    QStringList m_ids; // oldest first
};

TEST_F(HistoryQueryTest, KeysetPagesWalkEveryPaymentOnceNewestFirst)
{
    QStringList seen;
    std::optional<HistoryCursor> cursor;
    int pages = 0;
    do {
        auto page = HistoryQuery::page(db(), {}, cursor, 10);
        ASSERT_TRUE(page.ok()) << qPrintable(page.error().message);
        for (const HistoryRow &row : page->rows)
            seen << row.publicId;
        cursor = page->next;
        ++pages;
    } while (cursor && pages < 10);
    EXPECT_EQ(pages, 3);
    ASSERT_EQ(seen.size(), 25);
    EXPECT_EQ(QSet<QString>(seen.cbegin(), seen.cend()).size(), 25);
    QStringList newestFirst = m_ids;
    std::reverse(newestFirst.begin(), newestFirst.end());
    EXPECT_EQ(seen, newestFirst);
}

TEST_F(HistoryQueryTest, FiltersNarrowTheSearch)
{
    HistoryFilter byAmount;
    byAmount.minAmount = 500;
    byAmount.maxAmount = 900;
    auto amounts = HistoryQuery::page(db(), byAmount, std::nullopt, 50);
    ASSERT_TRUE(amounts.ok());
    EXPECT_EQ(amounts->rows.size(), 5); // 500, 600, 700, 800, 900

    HistoryFilter byOrder;
    byOrder.outTradeNo = QStringLiteral("H-7");
    auto order = HistoryQuery::page(db(), byOrder, std::nullopt, 50);
    ASSERT_TRUE(order.ok());
    ASSERT_EQ(order->rows.size(), 1);
    EXPECT_EQ(order->rows.at(0).publicId, m_ids.at(7));
    EXPECT_EQ(order->rows.at(0).amount, 800);
    EXPECT_EQ(order->rows.at(0).merchantName, QStringLiteral("Test Merchant"));

    HistoryFilter byState;
    byState.state = QStringLiteral("Refunded");
    auto none = HistoryQuery::page(db(), byState, std::nullopt, 50);
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->rows.isEmpty());

    // Two refunded among the captured: the filter finds exactly those, newest
    // first, also across pages, and combined with another filter.
    ASSERT_EQ(post("/v1/refunds", "charge=" + m_ids.at(2).toLatin1(), "state-a").status, 200);
    ASSERT_EQ(post("/v1/refunds", "charge=" + m_ids.at(9).toLatin1(), "state-b").status, 200);
    auto refunded = HistoryQuery::page(db(), byState, std::nullopt, 1);
    ASSERT_TRUE(refunded.ok()) << qPrintable(refunded.error().message);
    ASSERT_EQ(refunded->rows.size(), 1);
    EXPECT_EQ(refunded->rows.at(0).publicId, m_ids.at(9));
    EXPECT_EQ(refunded->rows.at(0).state, QStringLiteral("Refunded"));
    ASSERT_TRUE(refunded->next.has_value());
    auto older = HistoryQuery::page(db(), byState, refunded->next, 1);
    ASSERT_TRUE(older.ok());
    ASSERT_EQ(older->rows.size(), 1);
    EXPECT_EQ(older->rows.at(0).publicId, m_ids.at(2));
    EXPECT_FALSE(older->next.has_value());
    byState.minAmount = 1000;
    auto both = HistoryQuery::page(db(), byState, std::nullopt, 50);
    ASSERT_TRUE(both.ok());
    ASSERT_EQ(both->rows.size(), 1); // charge 9 is 1000, charge 2 is 300
    EXPECT_EQ(both->rows.at(0).publicId, m_ids.at(9));
}

TEST_F(HistoryQueryTest, TimelineShowsEveryTableThatTouchedTheCharge)
{
    const QByteArray id = m_ids.at(3).toLatin1();
    ASSERT_EQ(post("/v1/refunds", "charge=" + id, "history-refund").status, 200);
    auto timeline = HistoryQuery::timeline(db(), m_ids.at(3));
    ASSERT_TRUE(timeline.ok()) << qPrintable(timeline.error().message);
    QStringList sources;
    QString all;
    for (const TimelineEntry &entry : *timeline) {
        sources << entry.source;
        all += entry.summary + u'\n';
    }
    for (const char *source : {"idempotency", "state", "ledger", "outbox", "refund"})
        EXPECT_TRUE(sources.contains(QLatin1String(source))) << source << "\n" << qPrintable(all);
    EXPECT_TRUE(all.contains(QLatin1String("Capturing -> Captured (capture_ok)")))
        << qPrintable(all);
    EXPECT_TRUE(all.contains(QLatin1String("Refunding -> Refunded"))) << qPrintable(all);
    EXPECT_TRUE(all.contains(QLatin1String("debit 400 USD"))) << qPrintable(all);
    for (qsizetype i = 1; i < timeline->size(); ++i)
        EXPECT_LE(timeline->at(i - 1).at, timeline->at(i).at);
}

TEST(HistoryCsv, AmountsUseTheCurrencyExponentAndFieldsAreQuoted)
{
    EXPECT_EQ(HistoryQuery::formatAmount(123456, 2), QStringLiteral("1234.56"));
    EXPECT_EQ(HistoryQuery::formatAmount(5, 2), QStringLiteral("0.05"));
    EXPECT_EQ(HistoryQuery::formatAmount(5000, 0), QStringLiteral("5000"));
    EXPECT_EQ(HistoryQuery::formatAmount(1, 3), QStringLiteral("0.001"));
    EXPECT_EQ(HistoryQuery::formatAmount(-250, 2), QStringLiteral("-2.50"));
    HistoryRow row;
    row.publicId = QStringLiteral("ch_x");
    row.merchantName = QStringLiteral("Noodles, \"Best\" Ltd");
    row.currency = QStringLiteral("JPY");
    row.exponent = 0;
    row.amount = 500;
    row.state = QStringLiteral("Captured");
    row.created = QDateTime::fromSecsSinceEpoch(0, Qt::UTC);
    EXPECT_TRUE(
        HistoryQuery::csvLine(row).contains(QLatin1String("\"Noodles, \"\"Best\"\" Ltd\"")));
    // The header's separators, plus the one comma quoted inside the merchant's name.
    EXPECT_EQ(HistoryQuery::csvLine(row).count(u','), HistoryQuery::csvHeader().count(u',') + 1);
}

TEST_F(HistoryQueryTest, CsvExportWritesEveryRowAndCanBeCanceled)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QList<qint64> reports;
    auto written = HistoryQuery::exportCsv(db(), {}, buffer, [&](qint64 rows) {
        reports << rows;
        return true;
    });
    ASSERT_TRUE(written.ok()) << qPrintable(written.error().message);
    EXPECT_EQ(*written, 25);
    const QList<QByteArray> lines = buffer.data().trimmed().split('\n');
    ASSERT_EQ(lines.size(), 26);
    EXPECT_EQ(lines.at(0), HistoryQuery::csvHeader().toUtf8());
    EXPECT_TRUE(lines.at(1).startsWith(m_ids.last().toUtf8()));
    EXPECT_TRUE(lines.at(1).contains(",USD,25.00,25.00,0.00,Captured"));
    EXPECT_EQ(reports.last(), 25);

    QBuffer canceled;
    canceled.open(QIODevice::WriteOnly);
    auto stopped = HistoryQuery::exportCsv(db(), {}, canceled, [](qint64) { return false; });
    ASSERT_FALSE(stopped.ok());
    EXPECT_TRUE(stopped.error().message.contains(QLatin1String("canceled")));
}
