// The console's paged tables without a database: their pages come from
// memory, so paging, stale answers, failures and what each cell shows are
// checked in milliseconds. What the queries return is the database tests'
// business (HistoryQueryTest, AuditViewTest).

#include "ui/AuditModel.h"
#include "ui/HistoryModel.h"

#include <QBrush>
#include <QSignalSpy>
#include <QTableView>

#include <gtest/gtest.h>

#include <functional>
#include <vector>

using namespace keel;

namespace {

HistoryRow payment(int number, qint64 amount = 1999,
                   const QString &currency = QStringLiteral("CNY"), int exponent = 2)
{
    HistoryRow row;
    row.publicId = QStringLiteral("ch_%1").arg(number, 6, 10, QLatin1Char('0'));
    row.merchantId = 7;
    row.merchantName = QStringLiteral("Tea House");
    row.outTradeNo = QStringLiteral("order-%1").arg(number);
    row.amount = amount;
    row.amountCaptured = amount;
    row.currency = currency;
    row.exponent = exponent;
    row.state = QStringLiteral("Captured");
    row.created = QDateTime(QDate(2026, 12, 1), QTime(9, 0), Qt::UTC).addSecs(-number);
    return row;
}

// `count` payments served `pageSize` at a time, the cursor being the index of
// the next row (kept in HistoryCursor::id); answered at once.
HistoryModel::Pages inMemory(const QList<HistoryRow> &rows, int pageSize)
{
    return [rows, pageSize](QObject *, const HistoryFilter &,
                            const std::optional<HistoryCursor> &after,
                            std::function<void(const Result<HistoryPage> &)> deliver) {
        const qsizetype from = after ? after->id : 0;
        HistoryPage page;
        page.rows = rows.mid(from, pageSize);
        if (from + pageSize < rows.size())
            page.next = HistoryCursor{{}, from + pageSize};
        deliver(page);
    };
}

QList<HistoryRow> payments(int count)
{
    QList<HistoryRow> rows;
    for (int number = 1; number <= count; ++number)
        rows << payment(number);
    return rows;
}

QString shown(const QAbstractItemModel &model, int row, int column, int role = Qt::DisplayRole)
{
    return model.data(model.index(row, column), role).toString();
}

} // namespace

TEST(PagedModelTest, PagesArriveAsTheViewScrollsUntilTheLastOne)
{
    HistoryModel model(inMemory(payments(450), 200));
    QSignalSpy loaded(&model, &PagedTableModel::pageLoaded);
    model.search({});
    EXPECT_EQ(model.rowCount(), 200);
    ASSERT_TRUE(model.canFetchMore({}));
    model.fetchMore({});
    model.fetchMore({});
    EXPECT_EQ(model.rowCount(), 450);
    EXPECT_FALSE(model.canFetchMore({}));
    EXPECT_EQ(loaded.count(), 3);
    EXPECT_EQ(model.rowAt(449).publicId, QStringLiteral("ch_000450"));

    // A view over it asks for more by itself as it is scrolled to the end.
    HistoryModel scrolled(inMemory(payments(450), 200));
    QTableView view;
    view.resize(800, 400);
    view.setModel(&scrolled);
    scrolled.search({});
    view.show();
    for (int step = 0; step < 10 && scrolled.canFetchMore({}); ++step) {
        view.scrollToBottom();
        QCoreApplication::processEvents();
    }
    EXPECT_EQ(scrolled.rowCount(), 450);
}

TEST(PagedModelTest, AnAnswerToAnEarlierSearchIsDropped)
{
    std::vector<std::pair<HistoryFilter, std::function<void(const Result<HistoryPage> &)>>> asked;
    HistoryModel model([&](QObject *, const HistoryFilter &filter,
                           const std::optional<HistoryCursor> &,
                           std::function<void(const Result<HistoryPage> &)> deliver) {
        asked.emplace_back(filter, std::move(deliver));
    });
    HistoryFilter first;
    first.outTradeNo = QStringLiteral("order-1");
    HistoryFilter second;
    second.outTradeNo = QStringLiteral("order-2");
    model.search(first);
    EXPECT_TRUE(model.loading());
    model.search(second);
    ASSERT_EQ(asked.size(), 2u);

    asked.at(0).second(HistoryPage{{payment(1)}, std::nullopt}); // late, for the old search
    EXPECT_EQ(model.rowCount(), 0);
    EXPECT_TRUE(model.loading());
    asked.at(1).second(HistoryPage{{payment(2)}, std::nullopt});
    ASSERT_EQ(model.rowCount(), 1);
    EXPECT_EQ(model.rowAt(0).outTradeNo, QStringLiteral("order-2"));
    EXPECT_FALSE(model.loading());
}

TEST(PagedModelTest, AFailedPageSaysWhyAndStopsAskingForMore)
{
    HistoryModel model([](QObject *, const HistoryFilter &, const std::optional<HistoryCursor> &,
                          std::function<void(const Result<HistoryPage> &)> deliver) {
        deliver(makeError(ErrorKind::Failed, QStringLiteral("permission denied for audit_log")));
    });
    QSignalSpy failed(&model, &PagedTableModel::loadFailed);
    model.search({});
    ASSERT_EQ(failed.count(), 1);
    EXPECT_EQ(failed.at(0).at(0).toString(), QStringLiteral("permission denied for audit_log"));
    EXPECT_EQ(model.rowCount(), 0);
    EXPECT_FALSE(model.canFetchMore({}));
}

TEST(PagedModelTest, AmountsShowInTheirCurrencysOwnUnitsRightAligned)
{
    HistoryModel model(inMemory({payment(1, 123456, QStringLiteral("CNY"), 2),
                                 payment(2, 5000, QStringLiteral("JPY"), 0),
                                 payment(3, 1005, QStringLiteral("BHD"), 3)},
                                200));
    model.search({});
    ASSERT_EQ(model.rowCount(), 3);
    EXPECT_EQ(shown(model, 0, HistoryModel::Amount), QStringLiteral("1234.56 CNY"));
    EXPECT_EQ(shown(model, 1, HistoryModel::Amount), QStringLiteral("5000 JPY"));
    EXPECT_EQ(shown(model, 2, HistoryModel::Amount), QStringLiteral("1.005 BHD"));
    EXPECT_EQ(shown(model, 2, HistoryModel::Captured), QStringLiteral("1.005"));
    EXPECT_EQ(shown(model, 0, HistoryModel::Merchant), QStringLiteral("Tea House (7)"));
    const auto alignment = [&](int column) {
        return model.data(model.index(0, column), Qt::TextAlignmentRole).toInt();
    };
    EXPECT_TRUE(alignment(HistoryModel::Amount) & Qt::AlignRight);
    EXPECT_TRUE(alignment(HistoryModel::Refunded) & Qt::AlignRight);
    EXPECT_FALSE(alignment(HistoryModel::Charge) & Qt::AlignRight);
}

TEST(PagedModelTest, TheAuditLinkThatBrokeTheChainIsMarked)
{
    QList<AuditEntry> entries;
    for (qint64 seq = 3; seq >= 1; --seq) {
        AuditEntry entry;
        entry.seq = seq;
        entry.actor = QStringLiteral("ops_alice");
        entry.action = QStringLiteral("propose");
        entry.objectType = QStringLiteral("case");
        entry.objectId = QString::number(seq);
        entry.hash = QByteArray(32, char(seq));
        entries << entry;
    }
    AuditModel model([entries](QObject *, const AuditFilter &, const std::optional<qint64> &,
                               std::function<void(const Result<AuditPage> &)> deliver) {
        deliver(AuditPage{entries, std::nullopt});
    });
    model.search({});
    ASSERT_EQ(model.rowCount(), 3);
    EXPECT_EQ(model.rowOf(2), 1);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setBrokenSeq(2);
    EXPECT_EQ(changed.count(), 1);
    EXPECT_FALSE(model.data(model.index(0, AuditModel::Seq), Qt::ForegroundRole).isValid());
    EXPECT_EQ(model.data(model.index(1, AuditModel::Seq), Qt::ForegroundRole).value<QBrush>(),
              QBrush(Qt::red));
    EXPECT_EQ(shown(model, 1, AuditModel::Object), QStringLiteral("case:2"));
    EXPECT_EQ(shown(model, 1, AuditModel::Hash), QStringLiteral("020202020202"));
    EXPECT_EQ(shown(model, 1, AuditModel::Hash, Qt::ToolTipRole).size(), 64);
}
