#include "MigratedDatabaseTest.h"
#include "MoneyCase.h"

#include "core/db/LibpqConnection.h"
#include "core/db/MigrationSource.h"
#include "core/db/QtSqlConnections.h"
#include "core/db/SessionInfo.h"
#include "core/metrics/Metrics.h"
#include "core/metrics/RollupBuffer.h"
#include "core/read/OverviewQuery.h"

#include <QDateTime>

using namespace keel;
using keel::test::MigratedDatabaseTest;

class OverviewQueryTest : public MigratedDatabaseTest {};

TEST_F(OverviewQueryTest, SessionInfoNamesTheUserAndTheKeelRolesTheyHold)
{
    auto admin = SessionInfo::load(db());
    ASSERT_TRUE(admin.ok()) << qPrintable(admin.error().message);
    EXPECT_TRUE(admin->superuser);
    EXPECT_EQ(admin->schemaVersion, int(MigrationSource::load()->size()));

    auto auditorDb = QtSqlConnections::connect(loginAs(QStringLiteral("keel_auditor")),
                                               QStringLiteral("keel-test-auditor"));
    ASSERT_TRUE(auditorDb.ok()) << qPrintable(auditorDb.error().message);
    auto auditor = SessionInfo::load(*auditorDb);
    ASSERT_TRUE(auditor.ok()) << qPrintable(auditor.error().message);
    EXPECT_FALSE(auditor->superuser);
    EXPECT_EQ(auditor->keelRoles, QStringList{QStringLiteral("keel_auditor")});
    EXPECT_TRUE(auditor->holds(QStringLiteral("keel_auditor")));
    EXPECT_FALSE(auditor->holds(QStringLiteral("keel_operator")));
}

TEST_F(OverviewQueryTest, RatesPercentilesAndVolumesComeFromTheRollups)
{
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    const qint64 minute = (now / 60 - 5) * 60;
    const QByteArray at = "to_timestamp(" + QByteArray::number(minute) + ")";
    // Two processes counted the same minute; their rows add up.
    exec("INSERT INTO keel.metrics_minute (metric, le_micros, minute, source, count, total) VALUES "
         "('idempotency.new', 0, " +
         at + ", 'a', 5, 0), ('idempotency.new', 0, " + at +
         ", 'b', 3, 0),"
         "('idempotency.replayed', 0, " +
         at +
         ", 'a', 2, 0),"
         "('idempotency.in_flight_conflict', 0, " +
         at +
         ", 'b', 1, 0),"
         "('latency.charges_create', 1000, " +
         at +
         ", 'a', 50, 0),"
         "('latency.charges_create', 5000, " +
         at +
         ", 'a', 45, 0),"
         "('latency.charges_create', 100000, " +
         at +
         ", 'b', 5, 0),"
         "('volume.capture.USD', 0, " +
         at +
         ", 'a', 2, 12345),"
         "('volume.refund.USD', 0, " +
         at + ", 'b', 1, 345)");
    auto data = OverviewQuery::load(db(), 15 * 60, now);
    ASSERT_TRUE(data.ok()) << qPrintable(data.error().message);
    EXPECT_EQ(data->stepSeconds, 60);
    const qsizetype i = data->times.indexOf(minute);
    ASSERT_GE(i, 0);
    EXPECT_EQ(data->series(QStringLiteral("idempotency.new")).at(i), 8);
    EXPECT_DOUBLE_EQ(data->hitRate().at(i), 2.0 / 11.0);
    EXPECT_DOUBLE_EQ(data->conflictRate().at(i), 1.0 / 11.0);
    EXPECT_LT(data->hitRate().at(i == 0 ? 1 : 0), 0) << "an empty minute has no rate, not zero";
    // Interpolated inside the bucket holding the rank, between the histogram's
    // fixed bounds (..., 1000, 2500, 5000, 10000, 25000, 50000, 100000, ...).
    EXPECT_EQ(data->p50Micros.at(i), 1000);  // rank 50 of 100 ends the (0, 1000] bucket
    EXPECT_EQ(data->p95Micros.at(i), 5000);  // rank 95 ends the (2500, 5000] bucket
    EXPECT_EQ(data->p99Micros.at(i), 90000); // rank 99 is 4/5 into (50000, 100000]
    EXPECT_EQ(data->captured.value(QStringLiteral("USD")).at(i), 12345);
    EXPECT_EQ(data->refunded.value(QStringLiteral("USD")).at(i), 345);
    EXPECT_EQ(data->exponents.value(QStringLiteral("JPY")), 0);
    EXPECT_TRUE(data->suspenseBalances.isEmpty());
}

// Through the real producers: what the relay and the saga runner report
// reaches the Overview under the names it reads.
TEST_F(OverviewQueryTest, OutboxLagAndSagaFiguresComeFromWhatTheProcessesReport)
{
    auto session = LibpqConnection::open(settings());
    ASSERT_TRUE(session.ok());
    // Whatever earlier tests in this process counted is flushed and dropped.
    ASSERT_TRUE(RollupBuffer::instance().flush(*session, QStringLiteral("earlier")).ok());
    exec("DELETE FROM keel.metrics_minute");

    Metrics &metrics = Metrics::instance();
    metrics.setOutboxState(4000, 10, 0);
    metrics.setOutboxState(2000, 30, 1);
    metrics.countOutbox(QStringLiteral("published"), 25);
    metrics.countOutbox(QStringLiteral("parked"), 1);
    for (int i = 0; i < 4; ++i)
        metrics.countSaga(QStringLiteral("refund"), QStringLiteral("started"));
    metrics.countSaga(QStringLiteral("refund"), QStringLiteral("compensating"));
    metrics.countSaga(QStringLiteral("refund"), QStringLiteral("compensated"));
    // 90 quick steps and 10 slow ones of one definition, 1 of another.
    for (int i = 0; i < 90; ++i)
        metrics.observeSagaStep(QStringLiteral("refund"), QStringLiteral("reserve"),
                                QStringLiteral("action"), QStringLiteral("ok"), 800);
    for (int i = 0; i < 10; ++i)
        metrics.observeSagaStep(QStringLiteral("refund"), QStringLiteral("reserve"),
                                QStringLiteral("action"), QStringLiteral("ok"), 80000);
    metrics.observeSagaStep(QStringLiteral("payout"), QStringLiteral("send"),
                            QStringLiteral("action"), QStringLiteral("ok"), 3000);
    ASSERT_TRUE(RollupBuffer::instance().flush(*session, QStringLiteral("test")).ok());

    const qint64 now = QDateTime::currentSecsSinceEpoch();
    auto data = OverviewQuery::load(db(), 15 * 60, now);
    ASSERT_TRUE(data.ok()) << qPrintable(data.error().message);
    // The minute the reports were counted in (this one, or the one before).
    const qsizetype i = data->series(QStringLiteral("outbox.published")).indexOf(25);
    ASSERT_GE(i, data->times.size() - 2);
    EXPECT_EQ(data->levels.value(QStringLiteral("outbox.lag_ms")).at(i), 3000);
    EXPECT_EQ(data->levels.value(QStringLiteral("outbox.backlog")).at(i), 20);
    EXPECT_LT(data->levels.value(QStringLiteral("outbox.lag_ms")).at(i == 0 ? 1 : 0), 0)
        << "a minute without reports has no lag, not zero";
    EXPECT_EQ(data->series(QStringLiteral("outbox.published")).at(i), 25);
    EXPECT_EQ(data->series(QStringLiteral("outbox.parked")).at(i), 1);
    EXPECT_EQ(data->series(QStringLiteral("saga.compensated")).at(i), 1);
    EXPECT_DOUBLE_EQ(data->compensationRate().at(i), 0.25);
    ASSERT_EQ(data->stepLatency.size(), 2);
    const OverviewData::StepLatency refund = data->stepLatency.value(QStringLiteral("refund"));
    EXPECT_EQ(refund.p50, 555);               // rank 50 is 50/90 into the (0, 1000] bucket
    EXPECT_EQ(refund.p99, 95000);             // rank 99 is 9/10 into (50000, 100000]
    EXPECT_EQ(refund.p95Micros.at(i), 75000); // rank 95 is halfway into it
    EXPECT_EQ(data->stepLatency.value(QStringLiteral("payout")).p50, 3750);
}

TEST_F(OverviewQueryTest, LongRangesKeepAboutTwoHundredFortyPoints)
{
    for (const qint64 range : {15 * 60LL, 3600LL, 6 * 3600LL, 24 * 3600LL, 7 * 24 * 3600LL}) {
        auto data = OverviewQuery::load(db(), range, QDateTime::currentSecsSinceEpoch());
        ASSERT_TRUE(data.ok());
        EXPECT_LE(data->times.size(), 241) << range;
        EXPECT_GE(data->times.last() + data->stepSeconds - data->times.first(), range) << range;
    }
}

TEST_F(OverviewQueryTest, SuspenseBalanceAndPaymentsInFlightAreReported)
{
    exec("BEGIN;"
         "WITH t AS (INSERT INTO keel.ledger_transactions (kind) VALUES ('suspense_in') RETURNING "
         "id) "
         "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
         "SELECT t.id, a.id, 'CNY', CASE a.kind WHEN 'suspense' THEN -700 ELSE 700 END FROM t, "
         "keel.ledger_accounts a WHERE a.currency = 'CNY' AND a.kind IN ('suspense', 'asset');"
         "COMMIT;");
    exec(
        "INSERT INTO keel.merchants (name, api_key_hash) VALUES ('m', sha256('k'));"
        "INSERT INTO keel.charges (public_id, merchant_id, out_trade_no, amount, currency, source, "
        "request_hash) SELECT 'ch_overview0001', id, 'o1', 5, 'CNY', 'tok', sha256('r') FROM "
        "keel.merchants;"
        "INSERT INTO keel.payment_state (charge_id, state) SELECT id, 'Authorizing' FROM "
        "keel.charges;");
    auto data = OverviewQuery::load(db(), 3600, QDateTime::currentSecsSinceEpoch());
    ASSERT_TRUE(data.ok()) << qPrintable(data.error().message);
    ASSERT_EQ(data->suspenseBalances.size(), 1);
    EXPECT_EQ(data->suspenseBalances.at(0).first, QStringLiteral("CNY"));
    EXPECT_EQ(data->suspenseBalances.at(0).second, 700);
    ASSERT_EQ(data->inFlight.size(), 1);
    EXPECT_EQ(data->inFlight.at(0), std::make_pair(QStringLiteral("Authorizing"), qint64(1)));
}

// The suspense balance nets money held against money the channels owe
// (migration 0050); the owed is read apart from the open cases.
TEST_F(OverviewQueryTest, WhatTheChannelsOweIsShownApartFromTheBalance)
{
    exec(QByteArray(keel::test::MoneyCaseSql) + keel::test::OwedCaseSql);
    auto data = OverviewQuery::load(db(), 3600, QDateTime::currentSecsSinceEpoch());
    ASSERT_TRUE(data.ok()) << qPrintable(data.error().message);
    ASSERT_EQ(data->suspenseBalances.size(), 1);
    EXPECT_EQ(data->suspenseBalances.at(0).second, 16132) << "176.32 held less 15.00 owed";
    ASSERT_EQ(data->suspenseOwed.size(), 1);
    EXPECT_EQ(data->suspenseOwed.at(0), std::make_pair(QStringLiteral("USD"), qint64(1500)));
    OverviewScope noCases;
    noCases.owedCases = false;
    auto without = OverviewQuery::load(db(), 3600, QDateTime::currentSecsSinceEpoch(), noCases);
    ASSERT_TRUE(without.ok());
    EXPECT_TRUE(without->suspenseOwed.isEmpty());
}

// What owed cases left in suspense, over time: 15.00 parked as owed 30
// minutes ago, returned to clearing 10 minutes ago (the channel paid after
// all). The balance nets it; the owed level shows it.
TEST_F(OverviewQueryTest, OwedMoneyOverTimeIsReadFromItsCasesPostings)
{
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    const auto at = [&](qint64 ago) -> QByteArray {
        return "to_timestamp(" + QByteArray::number(now - ago) + ")";
    };
    // One posting of `kind` `ago` seconds back: `toSuspense` debited to
    // suspense, the opposite to clearing.
    const auto post = [&](const char *kind, qint64 ago, qint64 toSuspense,
                          const QByteArray &ofCase) -> QByteArray {
        return "WITH t AS (INSERT INTO keel.ledger_transactions (kind, created_at, "
               "suspense_case_id) VALUES ('" +
               QByteArray(kind) + "', " + at(ago) + ", " + ofCase +
               ") RETURNING id) "
               "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount, "
               "created_at) SELECT t.id, a.id, 'USD', CASE a.kind WHEN 'suspense' THEN " +
               QByteArray::number(toSuspense) + " ELSE " + QByteArray::number(-toSuspense) +
               " END, " + at(ago) +
               " FROM t, keel.ledger_accounts a WHERE a.currency = 'USD' "
               "AND (a.kind = 'suspense' OR a.code = 'channel_clearing:USD');";
    };
    exec("INSERT INTO keel.recon_runs (channel, business_date, matched, breaks, result_sha256, "
         "result, day_lines) VALUES ('sim', '2026-11-20', 0, 1, sha256('run'::bytea), '{}', 0);"
         "INSERT INTO keel.recon_breaks (channel, business_date, class, kind, reference, "
         "currency, channel_amount, keel_amount, status, first_run_id, last_run_id) "
         "SELECT 'sim', '2026-11-20', 'missing_at_channel', 'payment', 'ch_unpaid000000001', "
         "'USD', 0, 1500, 'new', id, id FROM keel.recon_runs;");
    exec("BEGIN;" + post("suspense_owed", 1800, 1500, "NULL") +
         "INSERT INTO keel.suspense_cases (amount, currency, reason, ledger_transaction_id, "
         "recon_break_id, direction) SELECT 1500, 'USD', 'never reported', max(t.id), "
         "max(b.id), 'owed' FROM keel.ledger_transactions t, keel.recon_breaks b;"
         "COMMIT;");
    exec("BEGIN;" +
         post("suspense_return", 600, -1500, "(SELECT max(id) FROM keel.suspense_cases)") +
         "UPDATE keel.suspense_cases SET status = 'resolved', resolved_at = now(), "
         "resolution = '{\"kind\": \"recon_run\"}';"
         "COMMIT;");

    auto data = OverviewQuery::load(db(), 3600, now);
    ASSERT_TRUE(data.ok()) << qPrintable(data.error().message);
    const QList<qint64> owed = data->suspenseOwedLevels.value(QStringLiteral("USD"));
    ASSERT_EQ(owed.size(), data->times.size());
    const auto bucketOf = [&](qint64 ago) {
        return (now - ago - data->fromEpoch) / data->stepSeconds;
    };
    EXPECT_EQ(owed.at(bucketOf(2400)), 0);
    EXPECT_EQ(owed.at(bucketOf(1200)), 1500);
    EXPECT_EQ(owed.last(), 0);
    const QList<qint64> net = data->suspenseLevels.value(QStringLiteral("USD"));
    ASSERT_EQ(net.size(), data->times.size());
    EXPECT_EQ(net.at(bucketOf(1200)), -1500) << "the balance: a debit of suspense";

    OverviewScope noCases;
    noCases.owedCases = false;
    auto without = OverviewQuery::load(db(), 3600, now, noCases);
    ASSERT_TRUE(without.ok());
    EXPECT_TRUE(without->suspenseOwedLevels.isEmpty());
}

TEST_F(OverviewQueryTest, SuspenseBalanceOverTimeIsTodaysLessWhatCameLater)
{
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    // 700 parked 30 minutes ago, 200 of it released for its case 10 minutes
    // ago (parking credits the suspense account, as Ledger::postSuspense does;
    // money leaves suspense only for a case).
    const auto post = [&](qint64 ago, qint64 amount) {
        exec("BEGIN;"
             "WITH t AS (INSERT INTO keel.ledger_transactions (kind, created_at, "
             "suspense_case_id) VALUES ('suspense_in', to_timestamp(" +
             QByteArray::number(now - ago) +
             "), (SELECT max(id) FROM keel.suspense_cases)) RETURNING id) "
             "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount, "
             "created_at) SELECT t.id, a.id, 'USD', CASE a.kind WHEN 'suspense' THEN " +
             QByteArray::number(-amount) + " ELSE " + QByteArray::number(amount) +
             " END, to_timestamp(" + QByteArray::number(now - ago) +
             ") FROM t, keel.ledger_accounts a WHERE a.currency = 'USD' "
             "AND a.kind IN ('suspense', 'asset');"
             "COMMIT;");
    };
    post(1800, 700);
    exec("INSERT INTO keel.suspense_cases (currency, amount, reason, ledger_transaction_id) "
         "SELECT 'USD', 700, 'parked', max(id) FROM keel.ledger_transactions");
    post(600, -200);
    auto data = OverviewQuery::load(db(), 3600, now);
    ASSERT_TRUE(data.ok()) << qPrintable(data.error().message);
    const QList<qint64> usd = data->suspenseLevels.value(QStringLiteral("USD"));
    ASSERT_EQ(usd.size(), data->times.size());
    const auto at = [&](qint64 ago) {
        return usd.at((now - ago - data->fromEpoch) / data->stepSeconds);
    };
    EXPECT_EQ(at(2400), 0);     // before anything was parked
    EXPECT_EQ(at(1200), 700);   // parked
    EXPECT_EQ(usd.last(), 500); // partly released: today's balance
}

// Each break counts from the run that first found it until it was resolved;
// an accepted one, and a fee difference, are not money left unexplained.
TEST_F(OverviewQueryTest, UnreconciledDifferenceRunsFromABreaksFirstRunToItsResolution)
{
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    const auto ago = [&](qint64 seconds) -> QByteArray {
        return "to_timestamp(" + QByteArray::number(now - seconds) + ")";
    };
    exec("INSERT INTO keel.recon_runs (channel, business_date, matched, breaks, result_sha256, "
         "result, run_at) VALUES ('sim', '2026-11-20', 0, 4, sha256('a'::bytea), '{}', " +
         ago(1800) +
         "); "
         "INSERT INTO keel.recon_breaks (channel, business_date, class, kind, reference, "
         "currency, channel_amount, keel_amount, status, first_run_id, last_run_id, "
         "resolved_at) SELECT 'sim', '2026-11-20', c, 'payment', r, 'USD', ca, ka, s, id, id, "
         "CASE s WHEN 'resolved' THEN " +
         ago(600) +
         " END FROM keel.recon_runs, (VALUES "
         "('missing_at_keel', 'ch_a', 700, 0, 'persisting'), "
         "('missing_at_channel', 'ch_b', 0, 200, 'resolved'), "
         "('fee_variance', 'ch_c', 9, 6, 'persisting')) AS v(c, r, ca, ka, s); "
         "INSERT INTO keel.recon_breaks (channel, business_date, class, kind, reference, "
         "currency, channel_amount, keel_amount, status, first_run_id, last_run_id, "
         "accepted_until) SELECT 'sim', '2026-11-20', 'missing_at_keel', 'payment', 'ch_d', "
         "'USD', 5000, 0, 'accepted', id, id, now() + interval '1 day' FROM keel.recon_runs");
    auto data = OverviewQuery::load(db(), 3600, now);
    ASSERT_TRUE(data.ok()) << qPrintable(data.error().message);
    EXPECT_TRUE(data->reconShown);
    const QList<qint64> usd = data->unreconciled.value(QStringLiteral("USD"));
    ASSERT_EQ(usd.size(), data->times.size());
    const auto at = [&](qint64 seconds) {
        return usd.at((now - seconds - data->fromEpoch) / data->stepSeconds);
    };
    EXPECT_EQ(at(2400), 0);     // before the run
    EXPECT_EQ(at(1200), 500);   // 700 the channel has, 200 keel has
    EXPECT_EQ(usd.last(), 700); // the shortfall resolved since

    auto hidden = OverviewQuery::load(db(), 3600, now, {true, true, true, false});
    ASSERT_TRUE(hidden.ok());
    EXPECT_FALSE(hidden->reconShown);
    EXPECT_TRUE(hidden->unreconciled.isEmpty());
}

TEST_F(OverviewQueryTest, PaymentsByStateAreTheTotalsAtEachBucketsEnd)
{
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    const qint64 step = OverviewQuery::stepFor(24 * 3600); // whole ten-minute slots
    ASSERT_EQ(step, 600);
    auto probe = OverviewQuery::load(db(), 24 * 3600, now, {false, false, true});
    ASSERT_TRUE(probe.ok());
    const qint64 bucket = probe->times.at(probe->times.size() - 3);
    const auto at = [](qint64 epoch) -> QByteArray {
        return "to_timestamp(" + QByteArray::number(epoch) + ")";
    };
    // Two minutes inside one bucket: its last minute is the one shown.
    exec("INSERT INTO keel.payment_state_minute (minute, state, payments) VALUES (" +
         at(bucket + 60) + ", 'Captured', 10), (" + at(bucket + step - 60) +
         ", 'Captured', 12), (" + at(bucket + step - 60) + ", 'Failed', 3)");
    auto data = OverviewQuery::load(db(), 24 * 3600, now, {false, false, true});
    ASSERT_TRUE(data.ok()) << qPrintable(data.error().message);
    const qsizetype i = data->times.indexOf(bucket);
    ASSERT_GE(i, 0);
    EXPECT_EQ(data->stateLevels.value(QStringLiteral("Captured")).value(i), 12);
    EXPECT_EQ(data->stateLevels.value(QStringLiteral("Failed")).value(i), 3);
    EXPECT_EQ(data->stateLevels.value(QStringLiteral("Captured")).value(i - 1), -1); // no figure
}

// Long ranges read folded ten-minute slots up to the fold's horizon and
// minutes after it: the same figures as reading every minute, before and
// after a fold, also for minutes counted after the fold.
TEST_F(OverviewQueryTest, LongRangesReadFoldedSlotsAndAddUpTheSame)
{
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    const qint64 minute = now / 60 * 60;
    QStringList rows;
    for (int ago = 1; ago <= 2 * 24 * 60; ago += 37) // two days, every 37 minutes, two sources
        for (const char *source : {"a", "b"})
            rows << QStringLiteral("('idempotency.new', 0, to_timestamp(%1), '%2', %3, 0)")
                        .arg(minute - ago * 60)
                        .arg(QLatin1String(source))
                        .arg(ago % 7 + 1);
    exec("INSERT INTO keel.metrics_minute (metric, le_micros, minute, source, count, total) "
         "VALUES " +
         rows.join(u',').toLatin1());
    const auto total = [&] {
        auto data = OverviewQuery::load(db(), 7 * 86400, now, {false, false, false});
        EXPECT_TRUE(data.ok()) << qPrintable(data.ok() ? QString() : data.error().message);
        EXPECT_EQ(data->stepSeconds % OverviewQuery::SlotSeconds, 0);
        qint64 sum = 0;
        for (const qint64 value : data->series(QStringLiteral("idempotency.new")))
            sum += value;
        return sum;
    };
    const qint64 expected =
        scalar("SELECT sum(count) FROM keel.metrics_minute WHERE metric = 'idempotency.new'")
            .toLongLong();
    ASSERT_GT(expected, 0);
    EXPECT_EQ(total(), expected) << "nothing folded yet: every minute is read";

    exec("SELECT keel.fold_metric_slots()");
    ASSERT_GT(scalar("SELECT count(*) FROM keel.metrics_ten_minutes").toLongLong(), 0);
    EXPECT_EQ(total(), expected) << "folded slots plus the minutes after them";
    // A fold again changes nothing; a minute counted after the fold still counts.
    exec("SELECT keel.fold_metric_slots()");
    exec("INSERT INTO keel.metrics_minute (metric, le_micros, minute, source, count, total) "
         "VALUES ('idempotency.new', 0, to_timestamp(" +
         QByteArray::number(minute) + "), 'c', 5, 0)");
    EXPECT_EQ(total(), expected + 5);
}
