#include "DatabaseTest.h"

#include "core/db/PgConnection.h"
#include "core/dev/HistorySeeder.h"
#include "core/read/HistoryQuery.h"
#include "core/read/OverviewQuery.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>
#include <functional>

using namespace keel;
using keel::test::DatabaseTest;

// The console's queries must stay cheap on a production-sized database: none
// may read a table that grows with traffic from start to end. Checked on real
// statistics (20,000 seeded payments, a week of rollups, ANALYZE).
class QueryPlanTest : public DatabaseTest {
protected:
    void SetUp() override
    {
        DatabaseTest::SetUp();
        migrate();
        auto session = PgConnection::open(settings());
        ASSERT_TRUE(session.ok());
        auto seeded = HistorySeeder::seed(*session, {20000, 10, 30});
        ASSERT_TRUE(seeded.ok()) << qPrintable(seeded.error().message);
        ASSERT_TRUE(session
                        ->exec("INSERT INTO keel.metrics_minute (metric, minute, source, count) "
                               "SELECT m, t, 'a', 1 FROM generate_series(date_trunc('minute', "
                               "now()) - interval '7 days', "
                               "now(), interval '1 minute') t, unnest(ARRAY['idempotency.new', "
                               "'idempotency.replayed', "
                               "'latency.charges_create', 'volume.capture.USD', "
                               "'posting.capture']) m; "
                               "INSERT INTO keel.payment_state_minute (minute, state, payments) "
                               "SELECT t, s, 100 FROM generate_series(date_trunc('minute', "
                               "now()) - interval '7 days', now(), interval '1 minute') t, "
                               "unnest(ARRAY['Authorizing', 'Authorized', 'Capturing', "
                               "'Captured', 'Refunding', 'Refunded', 'Failed']) s; ANALYZE")
                        .ok());
    }

    // The tables a plan reads sequentially, from EXPLAIN (FORMAT JSON) of the
    // statement as the application prepares it.
    QStringList sequentiallyScanned(const QString &sql, const QVariantList &binds)
    {
        QString numbered;
        int n = 0;
        for (const QChar c : sql)
            numbered += c == u'?' ? QStringLiteral("$%1").arg(++n) : QString(c);
        QStringList arguments;
        for (const QVariant &value : binds)
            arguments << (value.typeId() == QMetaType::QString
                              ? u'\'' + value.toString().replace(u'\'', QStringLiteral("''")) +
                                    u'\''
                              : value.toString());
        auto session = PgConnection::open(settings());
        EXPECT_TRUE(session.ok());
        Status prepared =
            session->exec(QString(QStringLiteral("PREPARE probe AS ") + numbered).toUtf8());
        EXPECT_TRUE(prepared.ok())
            << qPrintable(prepared.ok() ? QString() : prepared.error().message);
        auto json = session->scalar(
            QString(QStringLiteral("EXPLAIN (FORMAT JSON) EXECUTE probe") +
                    (arguments.isEmpty() ? QString() : QString(u'(' + arguments.join(u',') + u')')))
                .toUtf8());
        EXPECT_TRUE(json.ok());
        QStringList scanned;
        std::function<void(const QJsonObject &)> walk = [&](const QJsonObject &node) {
            if (node.value(QStringLiteral("Node Type")).toString() == QLatin1String("Seq Scan"))
                scanned << node.value(QStringLiteral("Relation Name")).toString();
            for (const QJsonValue &child : node.value(QStringLiteral("Plans")).toArray())
                walk(child.toObject());
        };
        walk(QJsonDocument::fromJson(json->toUtf8())
                 .array()
                 .at(0)
                 .toObject()
                 .value(QStringLiteral("Plan"))
                 .toObject());
        return scanned;
    }

    void expectNoFullScan(const QString &what, const QStringList &scanned)
    {
        for (const char *table :
             {"charges", "payment_state", "payment_events", "ledger_entries", "ledger_transactions",
              "metrics_minute", "refunds", "outbox", "payment_state_minute"})
            EXPECT_FALSE(scanned.contains(QLatin1String(table)))
                << qPrintable(what) << " reads all of " << table;
    }
};

TEST_F(QueryPlanTest, OverviewReadsThroughIndexes)
{
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    expectNoFullScan(QStringLiteral("range 15 min"),
                     sequentiallyScanned(QString::fromLatin1(OverviewQuery::rangeSql()),
                                         {60, 60, now - 900, now}));
    expectNoFullScan(QStringLiteral("suspense"),
                     sequentiallyScanned(QString::fromLatin1(OverviewQuery::suspenseSql()), {}));
    expectNoFullScan(QStringLiteral("payments by state, 1 hour"),
                     sequentiallyScanned(QString::fromLatin1(OverviewQuery::stateLevelsSql()),
                                         {now - 3600, now - 60, 60, now - 3600}));
    expectNoFullScan(
        QStringLiteral("payments by state, 7 days"),
        sequentiallyScanned(QString::fromLatin1(OverviewQuery::stateLevelsSql()),
                            {now - 7 * 86400 + 2520 - 60, now - 60, 2520, now - 7 * 86400}));
    expectNoFullScan(QStringLiteral("suspense over 7 days"),
                     sequentiallyScanned(QString::fromLatin1(OverviewQuery::suspenseMovesSql()),
                                         {2520, 2520, now - 7 * 86400}));
    expectNoFullScan(QStringLiteral("in flight"),
                     sequentiallyScanned(QString::fromLatin1(OverviewQuery::inFlightSql()), {}));
}

TEST_F(QueryPlanTest, HistoryPagesReadThroughIndexes)
{
    auto first = HistoryQuery::page(db(), {}, std::nullopt, 200);
    ASSERT_TRUE(first.ok() && first->next.has_value());
    QVariantList binds;
    QString sql = HistoryQuery::pageSql({}, std::nullopt, &binds);
    expectNoFullScan(QStringLiteral("first page"),
                     sequentiallyScanned(sql, binds + QVariantList{201}));
    binds.clear();
    sql = HistoryQuery::pageSql({}, first->next, &binds);
    expectNoFullScan(QStringLiteral("next page"),
                     sequentiallyScanned(sql, binds + QVariantList{201}));
    HistoryFilter byMerchant;
    byMerchant.merchantId = first->rows.at(0).merchantId;
    binds.clear();
    sql = HistoryQuery::pageSql(byMerchant, std::nullopt, &binds);
    expectNoFullScan(QStringLiteral("by merchant"),
                     sequentiallyScanned(sql, binds + QVariantList{201}));
    HistoryFilter byOrder;
    byOrder.outTradeNo = first->rows.at(0).outTradeNo;
    binds.clear();
    sql = HistoryQuery::pageSql(byOrder, std::nullopt, &binds);
    expectNoFullScan(QStringLiteral("by order number"),
                     sequentiallyScanned(sql, binds + QVariantList{201}));
}
