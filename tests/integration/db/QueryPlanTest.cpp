#include "MigratedDatabaseTest.h"

#include "core/db/LibpqConnection.h"
#include "core/read/HistoryQuery.h"
#include "core/read/OverviewQuery.h"
#include "devkit/sim/HistorySeeder.h"

#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>
#include <functional>

using namespace keel;
using keel::test::MigratedDatabaseTest;

// The console's queries must stay cheap on a production-sized database: none
// may read a table that grows with traffic from start to end. Checked on real
// statistics (20,000 seeded payments, a week of rollups, ANALYZE).
class QueryPlanTest : public MigratedDatabaseTest {
protected:
    void SetUp() override
    {
        MigratedDatabaseTest::SetUp();
        auto session = LibpqConnection::open(settings());
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
                               "'Captured', 'Refunding', 'Refunded', 'Failed']) s; "
                               "SELECT keel.fold_metric_slots(); ANALYZE")
                        .ok());
    }

    qint64 tableRows(const char *table)
    {
        if (!m_rows.contains(QLatin1String(table)))
            m_rows.insert(QLatin1String(table),
                          scalarOf("SELECT count(*) FROM keel." + QByteArray(table)).toLongLong());
        return m_rows.value(QLatin1String(table));
    }
    QString scalarOf(const QByteArray &sql)
    {
        auto session = LibpqConnection::open(settings());
        return session ? session->scalar(sql).value() : QString();
    }
    QHash<QString, qint64> m_rows;

    // How a statement, prepared as the application prepares it, reads its
    // tables: from EXPLAIN (FORMAT JSON).
    struct Plan {
        bool parsed = false;
        QStringList sequential;          // tables read from end to end
        QStringList indexed;             // tables read through an index
        QHash<QString, qint64> rowsRead; // per table, as EXPLAIN ANALYZE counted them
    };
    Plan plan(const QString &sql, const QVariantList &binds)
    {
        QString numbered;
        int n = 0;
        for (const QChar c : sql)
            numbered += c == u'?' ? QStringLiteral("$%1").arg(++n) : QString(c);
        QStringList arguments;
        for (const QVariant &value : binds)
            arguments << (value.typeId() == QMetaType::QString ||
                                  value.typeId() == QMetaType::QDateTime
                              ? u'\'' +
                                    (value.typeId() == QMetaType::QDateTime
                                         ? value.toDateTime().toString(Qt::ISODateWithMs)
                                         : value.toString())
                                        .replace(u'\'', QStringLiteral("''")) +
                                    u'\''
                              : value.toString());
        auto session = LibpqConnection::open(settings());
        EXPECT_TRUE(session.ok());
        // At 20,000 rows reading a whole table can be the cheaper plan; the
        // question here is whether an index can serve the statement at all,
        // so whole-table reads are priced out (they remain where nothing else
        // can answer).
        EXPECT_TRUE(session->exec("SET enable_seqscan = off").ok());
        Status prepared =
            session->exec(QString(QStringLiteral("PREPARE probe AS ") + numbered).toUtf8());
        EXPECT_TRUE(prepared.ok())
            << qPrintable(prepared.ok() ? QString() : prepared.error().message);
        auto json = session->scalar(
            QString(QStringLiteral("EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE probe") +
                    (arguments.isEmpty() ? QString() : QString(u'(' + arguments.join(u',') + u')')))
                .toUtf8());
        EXPECT_TRUE(json.ok());
        Plan shape;
        const QJsonObject root = QJsonDocument::fromJson(json.ok() ? json->toUtf8() : QByteArray())
                                     .array()
                                     .at(0)
                                     .toObject()
                                     .value(QStringLiteral("Plan"))
                                     .toObject();
        shape.parsed = root.contains(QStringLiteral("Node Type"));
        std::function<void(const QJsonObject &)> walk = [&](const QJsonObject &node) {
            const QString type = node.value(QStringLiteral("Node Type")).toString();
            const QString relation = node.value(QStringLiteral("Relation Name")).toString();
            if (type == QLatin1String("Seq Scan"))
                shape.sequential << relation;
            else if (type.startsWith(QLatin1String("Index")) ||
                     type == QLatin1String("Bitmap Heap Scan"))
                shape.indexed << relation;
            // What a scan touched: the rows it returned and those it read and dropped.
            if (!relation.isEmpty())
                shape.rowsRead[relation] +=
                    qint64(node.value(QStringLiteral("Actual Rows")).toDouble() *
                           node.value(QStringLiteral("Actual Loops")).toDouble()) +
                    qint64(node.value(QStringLiteral("Rows Removed by Filter")).toDouble()) +
                    qint64(node.value(QStringLiteral("Rows Removed by Index Recheck")).toDouble());
            for (const QJsonValue &child : node.value(QStringLiteral("Plans")).toArray())
                walk(child.toObject());
        };
        walk(root);
        return shape;
    }

    // The plan could be read, reads `table` through an index, and reads no
    // table that grows with traffic from end to end, nor (through any path)
    // more than `share` of its rows.
    void expectIndexed(const QString &what, const Plan &shape, const char *table,
                       double share = 0.2)
    {
        ASSERT_TRUE(shape.parsed) << qPrintable(what) << ": no plan to check";
        EXPECT_TRUE(shape.indexed.contains(QLatin1String(table)))
            << qPrintable(what) << " does not read " << table << " through an index (reads "
            << qPrintable(shape.indexed.join(u',')) << ")";
        for (const char *big :
             {"charges", "payment_state", "payment_events", "ledger_entries", "ledger_transactions",
              "metrics_minute", "refunds", "outbox", "payment_state_minute"}) {
            EXPECT_FALSE(shape.sequential.contains(QLatin1String(big)))
                << qPrintable(what) << " reads all of " << big;
            const qint64 rows = tableRows(big);
            EXPECT_LE(shape.rowsRead.value(QLatin1String(big)), qint64(share * double(rows)) + 1)
                << qPrintable(what) << " reads " << shape.rowsRead.value(QLatin1String(big))
                << " of " << big << "'s " << rows << " rows";
        }
    }
};

TEST_F(QueryPlanTest, EveryOverviewRangeReadsThroughIndexes)
{
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    for (const qint64 range : {900, 3600, 6 * 3600, 86400, 7 * 86400}) {
        const qint64 step = OverviewQuery::stepFor(range);
        const qint64 from = now - range;
        const QString what = QStringLiteral("range %1 s: ").arg(range);
        // The seeded rollups span seven days: a range reads its share of them;
        // ranges of whole ten-minute buckets read the folded slots, and of the
        // minutes only those after the fold.
        if (step % OverviewQuery::SlotSeconds == 0) {
            const Plan slots = plan(QString::fromLatin1(OverviewQuery::slotRangeSql()),
                                    {step, step, from, from, now});
            expectIndexed(what + QStringLiteral("rollup slots"), slots, "metrics_ten_minutes",
                          0.05);
            EXPECT_FALSE(slots.sequential.contains(QLatin1String("metrics_ten_minutes")));
            EXPECT_LE(slots.rowsRead.value(QStringLiteral("metrics_ten_minutes")),
                      qint64((double(range) / (7 * 86400) + 0.05) *
                             double(tableRows("metrics_ten_minutes"))) +
                          1);
        } else {
            expectIndexed(
                what + QStringLiteral("rollups"),
                plan(QString::fromLatin1(OverviewQuery::rangeSql()), {step, step, from, now}),
                "metrics_minute", double(range) / (7 * 86400) + 0.05);
        }
        expectIndexed(what + QStringLiteral("payments by state"),
                      plan(QString::fromLatin1(OverviewQuery::stateLevelsSql()),
                           {from + step - 60, now - 60, step, from}),
                      "payment_state_minute", double(range) / (7 * 86400) + 0.05);
        expectIndexed(
            what + QStringLiteral("suspense over time"),
            plan(QString::fromLatin1(OverviewQuery::suspenseMovesSql()), {step, step, from}),
            "ledger_entries");
        expectIndexed(
            what + QStringLiteral("owed over time"),
            plan(QString::fromLatin1(OverviewQuery::suspenseOwedMovesSql()), {from, step, step}),
            "ledger_entries");
    }
    expectIndexed(QStringLiteral("suspense now"),
                  plan(QString::fromLatin1(OverviewQuery::suspenseSql()), {}), "ledger_entries");
    expectIndexed(QStringLiteral("in flight"),
                  plan(QString::fromLatin1(OverviewQuery::inFlightSql()), {}), "payment_state");
}

TEST_F(QueryPlanTest, HistoryPagesAndFiltersReadThroughIndexes)
{
    auto first = HistoryQuery::page(db(), {}, std::nullopt, 200);
    ASSERT_TRUE(first.ok() && first->next.has_value());
    const HistoryRow &sample = first->rows.at(0);
    const auto check = [&](const QString &what, const HistoryFilter &filter,
                           const std::optional<HistoryCursor> &after, double share = 0.2) {
        QVariantList binds;
        const QString sql = HistoryQuery::pageSql(filter, after, &binds);
        expectIndexed(what, plan(sql, binds + QVariantList{201}), "charges", share);
    };
    check(QStringLiteral("first page"), {}, std::nullopt);
    check(QStringLiteral("next page"), {}, first->next);
    HistoryFilter filter;
    filter.merchantId = sample.merchantId;
    check(QStringLiteral("by merchant"), filter, std::nullopt);
    filter = {};
    filter.outTradeNo = sample.outTradeNo;
    check(QStringLiteral("by order number"), filter, std::nullopt);
    filter = {};
    filter.chargeId = sample.publicId;
    check(QStringLiteral("by charge id"), filter, std::nullopt);
    filter = {};
    filter.minAmount = 1000;
    filter.maxAmount = 50000;
    check(QStringLiteral("by amount"), filter, std::nullopt);
    filter = {};
    // A state filter walks payments newest first until a page is full: for a
    // state 6 % of payments are in, about 201 / 0.06 of them.
    filter.state = QStringLiteral("Refunded");
    check(QStringLiteral("by state"), filter, std::nullopt, 0.3);
    filter = {};
    filter.from = QDateTime::currentDateTimeUtc().addDays(-3);
    filter.to = QDateTime::currentDateTimeUtc().addDays(-2);
    check(QStringLiteral("by creation time"), filter, std::nullopt);
    filter.state = QStringLiteral("Captured");
    filter.currency = QStringLiteral("USD");
    filter.merchantId = sample.merchantId;
    check(QStringLiteral("merchant, state, currency and time together"), filter, first->next);
}

// Every refund's insert reads charge_withheld, which finds the refund breaks
// of the charge among the statement lines naming it (migration 0052): through
// the index on payment_reference, never a statement's lines end to end.
TEST_F(QueryPlanTest, ARefundsLimitReadsOnlyTheLinesNamingItsCharge)
{
    auto session = LibpqConnection::open(settings());
    ASSERT_TRUE(session.ok());
    const Status lines = session->exec(
        "INSERT INTO keel.recon_statements (channel, format, file_sha256, line_count) "
        "VALUES ('sim', 'csv', sha256('plan'), 0); "
        "INSERT INTO keel.recon_lines (statement_id, channel, line_no, kind, reference, "
        "channel_reference, amount, currency, fee, occurred_at, payment_reference) "
        "SELECT s.id, c.channel, row_number() OVER (), 'refund', 're_plan' || c.id, 'R' || c.id, "
        "1, c.currency, 0, now(), c.public_id "
        "FROM keel.charges c, keel.recon_statements s; "
        "INSERT INTO keel.recon_runs (channel, business_date, matched, breaks, result_sha256, "
        "result) VALUES ('sim', current_date, 0, 0, sha256(''), '{}'); "
        "INSERT INTO keel.recon_breaks (channel, business_date, class, kind, reference, currency, "
        "channel_amount, keel_amount, first_run_id, last_run_id) "
        "SELECT l.channel, current_date, 'missing_at_keel', 'refund', l.reference, l.currency, 1, "
        "0, r.id, r.id FROM keel.recon_lines l, keel.recon_runs r; ANALYZE");
    ASSERT_TRUE(lines.ok()) << qPrintable(lines.error().message);
    ASSERT_GE(tableRows("recon_lines"), 20000);
    // A session of its own: a backend's counts of earlier transactions wait
    // to be flushed, and would show in this one's.
    auto probe = LibpqConnection::open(settings());
    ASSERT_TRUE(probe.ok());
    ASSERT_TRUE(probe->exec("BEGIN").ok());
    const Result<QString> withheld =
        probe->scalar("SELECT keel.charge_withheld(id) FROM keel.charges ORDER BY id DESC LIMIT 1");
    ASSERT_TRUE(withheld.ok()) << qPrintable(withheld.error().message);
    const Result<QString> reads =
        probe->scalar("SELECT string_agg(relname || ':' || seq_tup_read + "
                      "coalesce(idx_tup_fetch, 0), ' ' ORDER BY relname) "
                      "FROM pg_stat_xact_user_tables "
                      "WHERE relname IN ('recon_lines', 'recon_breaks', 'charges', 'refunds')");
    ASSERT_TRUE(reads.ok());
    EXPECT_EQ(*withheld, QStringLiteral("1")) << "its line's break counts";
    // The charge by its key, its one line by the new index, its break by
    // the line's reference.
    for (const QString &table : reads->split(u' ')) {
        const QStringList counts = table.split(u':');
        ASSERT_EQ(counts.size(), 2) << qPrintable(*reads);
        EXPECT_LE(counts[1].toLongLong(), 20) << qPrintable(*reads);
    }
    EXPECT_TRUE(reads->contains(QLatin1String("recon_lines:"))) << qPrintable(*reads);
}
