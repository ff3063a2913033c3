#include "ReconciliationFixture.h"

#include "core/channel/SimulatedChannel.h"
#include "core/db/LibpqConnection.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlQuery>
#include <QTemporaryDir>

using namespace keel;
using keel::test::ProcessResult;
using keel::test::runKeel;

namespace {

using keel::test::item;
using keel::test::ReconciliationTest;

// One day with a difference of every class the books can show, as the
// channel's statement reports it.
class EveryDifferenceTest : public ReconciliationTest {
protected:
    void SetUp() override
    {
        ReconciliationTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        startGateway();
        m_ok = charge("amount=1000&currency=usd", "recon-ok");
        m_amount = charge("amount=2000&currency=usd", "recon-amount");
        m_currency = charge("amount=3000&currency=usd", "recon-currency");
        m_twice = charge("amount=4000&currency=usd", "recon-twice");
        m_silent = charge("amount=500&currency=usd", "recon-silent");
        m_held = charge("amount=700&currency=usd&capture=false", "recon-held");
        const QByteArray refundId = refund("charge=" + m_ok + "&amount=300", "recon-refund");
        ASSERT_FALSE(refundId.isEmpty());
        m_day = firstPostingDay();
        const ProcessResult imported = import(statement(
            QStringLiteral("day.csv"),
            {item(m_ok, ",S1,payment,10.00,USD,0.30,%1T12:00:00Z"),
             item(refundId, ",S2,refund,3.00,USD,-0.09,%1T12:00:00Z"),
             item(m_amount, ",S3,payment,25.00,USD,0.75,%1T12:00:00Z"),
             item(m_currency, ",S4,payment,30.00,EUR,0.90,%1T12:00:00Z"),
             item(m_twice, ",S5,payment,40.00,USD,1.20,%1T12:00:00Z"),
             item(m_twice, ",S6,payment,40.00,USD,1.20,%1T12:01:00Z"),
             item(m_held, ",S7,payment,7.00,USD,0.21,%1T12:00:00Z"),
             QStringLiteral("ch_neverSeen000001,S8,payment,9.99,USD,0.30,%1T12:00:00Z")}));
        ASSERT_EQ(imported.exitCode, 0) << qPrintable(imported.err);
        EXPECT_TRUE(imported.out.startsWith(QLatin1String("statement=")))
            << qPrintable(imported.out);
        EXPECT_TRUE(imported.out.contains(QLatin1String(" lines=8 days=") + m_day))
            << qPrintable(imported.out);
    }
    QString id(const QByteArray &reference) const { return QString::fromUtf8(reference); }

    QByteArray m_ok, m_amount, m_currency, m_twice, m_silent, m_held;
};

TEST_F(EveryDifferenceTest, EachIsABreakOfItsClassAndMetricsSayWhatIsUnexplained)
{
    const QJsonObject result = run();
    EXPECT_EQ(result.value(QStringLiteral("matched")).toInt(), 2);
    EXPECT_EQ(breaks(result),
              (QStringList{QStringLiteral("missing_at_keel:ch_neverSeen000001:new"),
                           QStringLiteral("missing_at_channel:%1:pending").arg(id(m_silent)),
                           QStringLiteral("amount_mismatch:%1:new").arg(id(m_amount)),
                           QStringLiteral("status_mismatch:%1:pending").arg(id(m_held)),
                           QStringLiteral("currency_mismatch:%1:new").arg(id(m_currency)),
                           QStringLiteral("duplicate:%1:new").arg(id(m_twice))}));
    const QJsonObject mismatch = result.value(QStringLiteral("breaks")).toArray().at(2).toObject();
    EXPECT_EQ(mismatch.value(QStringLiteral("channel_amount")).toInteger(), 2500);
    EXPECT_EQ(mismatch.value(QStringLiteral("keel_amount")).toInteger(), 2000);

    // /metrics says what the open breaks leave unexplained, per channel and per
    // merchant (a payment keel never saw has none), once the gateway's
    // housekeeping has read it.
    m_gateway->maintain();
    const QByteArray metrics = m_client->request("GET", "/metrics").body;
    EXPECT_TRUE(metrics.contains("keel_recon_difference{channel=\"sim\",currency=\"USD\"} 5699\n"))
        << "999 - 500 + 500 + 700 + 4000";
    const QByteArray merchantLine = "keel_recon_merchant_difference{merchant=\"" +
                                    QByteArray::number(m_merchant.merchant.id) +
                                    QByteArray("\",currency=\"USD\"} 4700\n");
    EXPECT_TRUE(metrics.contains(merchantLine)) << metrics.right(800).constData();
    // Gross, no break offsets another: the alerts page on these.
    EXPECT_TRUE(
        metrics.contains("keel_recon_gross_difference{channel=\"sim\",currency=\"USD\"} 6699\n"))
        << "999 + 500 + 500 + 700 + 4000";
    const QByteArray merchantGross = "keel_recon_merchant_gross_difference{merchant=\"" +
                                     QByteArray::number(m_merchant.merchant.id) +
                                     QByteArray("\",currency=\"USD\"} 5700\n");
    EXPECT_TRUE(metrics.contains(merchantGross)) << metrics.right(1200).constData();
    EXPECT_TRUE(metrics.contains("keel_recon_breaks{channel=\"sim\",class=\"duplicate\"} 1\n"));
}

TEST_F(EveryDifferenceTest, ABreakKeepsItsIdUntilLaterDataResolvesIt)
{
    const QJsonObject result = run();
    const QJsonValue mismatchId = result.value(QStringLiteral("breaks"))
                                      .toArray()
                                      .at(2)
                                      .toObject()
                                      .value(QStringLiteral("id"));
    // The same inputs give the same result; a break keeps its id and persists.
    const QJsonObject again = run();
    EXPECT_EQ(again.value(QStringLiteral("result_sha256")),
              result.value(QStringLiteral("result_sha256")));
    EXPECT_EQ(again.value(QStringLiteral("breaks"))
                  .toArray()
                  .at(2)
                  .toObject()
                  .value(QStringLiteral("id")),
              mismatchId);
    EXPECT_TRUE(
        breaks(again).contains(QStringLiteral("amount_mismatch:%1:persisting").arg(id(m_amount))));
    EXPECT_TRUE(
        breaks(again).contains(QStringLiteral("missing_at_channel:%1:pending").arg(id(m_silent))))
        << "pending until the settlement lag has passed";

    // Later data resolves a break: the channel's next day's file has the
    // capture, within the settlement lag.
    ASSERT_EQ(import(statement(QStringLiteral("late.csv"),
                               {item(m_silent, ",S9,payment,5.00,USD,0.15,%2T00:30:00Z")}))
                  .exitCode,
              0);
    const QJsonObject later = run();
    EXPECT_EQ(later.value(QStringLiteral("matched")).toInt(), 3);
    EXPECT_EQ(later.value(QStringLiteral("breaks")).toArray().size(), 5);
    EXPECT_EQ(scalar("SELECT status || ' ' || (resolved_at IS NOT NULL) FROM keel.recon_breaks "
                     "WHERE class = 'missing_at_channel'"),
              QStringLiteral("resolved true"));
    // That line is the day before's business, not judged again on its own day.
    const QJsonObject nextDay =
        run(QStringLiteral("sim"),
            QDate::fromString(m_day, Qt::ISODate).addDays(1).toString(Qt::ISODate));
    EXPECT_EQ(nextDay.value(QStringLiteral("matched")).toInt(), 0);
    EXPECT_TRUE(nextDay.value(QStringLiteral("breaks")).toArray().isEmpty());

    // Imports and runs are on the audit trail under the service's login: the
    // next day's run reopened this day once more, for the line it holds.
    EXPECT_EQ(scalar("SELECT count(*) FILTER (WHERE action = 'recon_import') || ' ' || "
                     "count(*) FILTER (WHERE action = 'recon_run') || ' ' || "
                     "bool_and(actor LIKE 't_keel_gateway_%') FROM keel.audit_log "
                     "WHERE action LIKE 'recon_%'"),
              QStringLiteral("2 5 true"));
}

// Once the day's settlement lag has passed, a break still found opens one
// suspense case: what the channel holds that keel did not book is parked in
// suspense, and what keel booked that the channel does not show is parked as
// owed (migration 0050); either charge then reconciles.
TEST_F(ReconciliationTest, ABreakPastTheLagOpensOneCaseParkingWhatTheChannelHolds)
{
    startGateway();
    const QByteArray more = charge("amount=1000&currency=usd", "recon-case-more");
    const QByteArray held = charge("amount=700&currency=usd&capture=false", "recon-case-held");
    const QByteArray absent = charge("amount=2000&currency=usd", "recon-case-absent");
    ASSERT_EQ(backdateBooks(), QStringLiteral("2"));
    m_day = firstPostingDay();
    ASSERT_EQ(import(statement(QStringLiteral("day.csv"),
                               {item(more, ",S1,payment,12.50,USD,0,%1T12:00:00Z"),
                                item(held, ",S2,payment,7.00,USD,0,%1T12:00:00Z"),
                                QStringLiteral("ch_neverSeen000001,S3,payment,9.99,USD,0,"
                                               "%1T12:00:00Z")}))
                  .exitCode,
              0);

    const QJsonObject first = run();
    EXPECT_EQ(first.value(QStringLiteral("cases_opened")).toInt(), 4);
    EXPECT_EQ(
        breaks(first),
        (QStringList{QStringLiteral("missing_at_keel:ch_neverSeen000001:new"),
                     QStringLiteral("missing_at_channel:%1:new").arg(QString::fromUtf8(absent)),
                     QStringLiteral("amount_mismatch:%1:new").arg(QString::fromUtf8(more)),
                     QStringLiteral("status_mismatch:%1:new").arg(QString::fromUtf8(held))}));
    EXPECT_EQ(
        scalar("SELECT string_agg(coalesce(c.public_id, '-') || ':' || k.amount || ':' || "
               "k.direction || ':' || k.status, ' ' ORDER BY k.recon_break_id) "
               "FROM keel.suspense_cases k LEFT JOIN keel.charges c ON c.id = k.charge_id "
               "WHERE k.recon_break_id IS NOT NULL"),
        QStringLiteral("-:999:held:open %1:2000:owed:open %2:250:held:open %3:0:held:open")
            .arg(QString::fromUtf8(absent), QString::fromUtf8(more), QString::fromUtf8(held)));
    EXPECT_EQ(scalar("SELECT -sum(e.amount) FROM keel.ledger_entries e JOIN keel.ledger_accounts a "
                     "ON a.id = e.account_id WHERE a.kind = 'suspense'"),
              QStringLiteral("-751"))
        << "9.99 and 2.50 held, 20.00 owed";
    const ProcessResult audit = runKeel({QStringLiteral("audit"), QStringLiteral("ledger"),
                                         QStringLiteral("--db"), settings().conninfo()});
    EXPECT_EQ(audit.exitCode, 0) << qPrintable(audit.err);
    // The run that parked is verified on what it read, before its parking.
    const ProcessResult verified =
        recon({QStringLiteral("verify"), QStringLiteral("--run"),
               QString::number(first.value(QStringLiteral("run")).toInteger())});
    EXPECT_EQ(verified.exitCode, 0) << qPrintable(verified.err);

    // Parked, the charge the channel took more for reconciles, and so does
    // the one it never reported; the others persist, the authorized charge
    // only chased (a capture could still book it), and nothing opens a
    // second case.
    const QJsonObject again = run();
    EXPECT_EQ(again.value(QStringLiteral("cases_opened")).toInt(), 0);
    EXPECT_EQ(again.value(QStringLiteral("matched")).toInt(), 2);
    EXPECT_EQ(breaks(again),
              (QStringList{
                  QStringLiteral("missing_at_keel:ch_neverSeen000001:persisting"),
                  QStringLiteral("status_mismatch:%1:persisting").arg(QString::fromUtf8(held))}));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.suspense_cases"), QStringLiteral("4"));
}

// A line that comes in a later day's file is judged on the day keel moved the
// money: running the later day reopens that one, which finds the line now
// (the break resolves) and, when the channel reports the payment once more,
// a duplicate there.
TEST_F(ReconciliationTest, ALateLineReopensTheDayItsMoneyMovedOn)
{
    startGateway();
    const QByteArray paid = charge("amount=1500&currency=usd", "recon-late");
    ASSERT_EQ(backdateBooks(), QStringLiteral("1"));
    m_day = firstPostingDay();
    const QString booked = m_day;
    const QString later = QDate::fromString(m_day, Qt::ISODate).addDays(1).toString(Qt::ISODate);
    const QString latest = QDate::fromString(m_day, Qt::ISODate).addDays(2).toString(Qt::ISODate);
    EXPECT_TRUE(breaks(run()).contains(
        QStringLiteral("missing_at_channel:%1:new").arg(QString::fromUtf8(paid))));

    const ProcessResult late = import(statement(
        QStringLiteral("late.csv"), {item(paid, ",L1,payment,15.00,USD,0,%2T08:00:00Z")}));
    ASSERT_EQ(late.exitCode, 0) << qPrintable(late.err);
    EXPECT_TRUE(late.out.contains(QLatin1String("days=") + later)) << qPrintable(late.out);
    const QJsonObject second = run(QStringLiteral("sim"), later);
    EXPECT_EQ(second.value(QStringLiteral("reopened")).toString(), booked);
    EXPECT_TRUE(second.value(QStringLiteral("breaks")).toArray().isEmpty());
    EXPECT_EQ(scalar("SELECT status FROM keel.recon_breaks WHERE class = 'missing_at_channel'"),
              QStringLiteral("resolved"));

    m_day = latest;
    ASSERT_EQ(import(statement(QStringLiteral("again.csv"),
                               {item(paid, ",L2,payment,15.00,USD,0,%1T09:00:00Z")}))
                  .exitCode,
              0);
    EXPECT_EQ(run(QStringLiteral("sim"), latest).value(QStringLiteral("reopened")).toString(),
              booked);
    EXPECT_EQ(scalar("SELECT class || ' ' || business_date || ' ' || channel_amount FROM "
                     "keel.recon_breaks WHERE status <> 'resolved'"),
              QStringLiteral("duplicate %1 3000").arg(booked));
}

// keel writes a statement's lines into COPY's text form itself: what the
// channel wrote is what is stored, whatever characters it holds, to the
// millisecond and in UTC whatever offset the file used.
TEST_F(ReconciliationTest, ALineIsStoredExactlyAsTheChannelWroteIt)
{
    startGateway();
    m_day = QStringLiteral("2026-12-01");
    const ProcessResult imported = import(
        statement(QStringLiteral("odd.csv"),
                  {QStringLiteral("ch_back\\slash\\N,\"T\tab\nbreak\",payment,1.00,USD,0,"
                                  "%1T12:00:00.007+08:00"),
                   QStringLiteral("re_\u4e2d\u6587,R1,refund,0.50,USD,-0.01,%1T23:59:59.999Z")}));
    ASSERT_EQ(imported.exitCode, 0) << qPrintable(imported.err);
    EXPECT_EQ(scalar("SELECT string_agg(format('%s|%s|%s|%s|%s', reference, channel_reference, "
                     "amount, fee, to_char(occurred_at AT TIME ZONE 'UTC', "
                     "'YYYY-MM-DD HH24:MI:SS.MS')), ';' ORDER BY line_no) FROM keel.recon_lines"),
              QStringLiteral("ch_back\\slash\\N|T\tab\nbreak|100|0|2026-12-01 04:00:00.007;"
                             "re_\u4e2d\u6587|R1|50|-1|2026-12-01 23:59:59.999"));
}

// A statement's lines are written with it or never: not added to one
// imported before, and not in a currency keel does not know.
TEST_F(ReconciliationTest, LinesCannotBeAddedToAStatementLater)
{
    startGateway();
    m_day = QStringLiteral("2026-12-01");
    ASSERT_EQ(import(statement(QStringLiteral("one.csv"),
                               {QStringLiteral("ch_firstLine000001,F1,payment,1.00,USD,0,"
                                               "%1T12:00:00Z")}))
                  .exitCode,
              0);
    auto service = LibpqConnection::open(m_serviceLogin);
    ASSERT_TRUE(service.ok()) << qPrintable(service.error().message);
    const QByteArray line = "INSERT INTO keel.recon_lines (statement_id, channel, line_no, kind, "
                            "reference, channel_reference, amount, currency, fee, occurred_at) ";
    EXPECT_FALSE(service
                     ->exec(line + "SELECT id, 'sim', 2, 'payment', 'ch_added', 'F2', 100, "
                                   "'USD', 0, now() FROM keel.recon_statements")
                     .ok());
    EXPECT_EQ(service->lastSqlState(), QStringLiteral("KL422")) << "added to an old statement";
    EXPECT_FALSE(service
                     ->exec("BEGIN; INSERT INTO keel.recon_statements (channel, format, "
                            "file_sha256, line_count) VALUES ('sim', 'csv', "
                            "sha256('x'::bytea), 1); " +
                            line +
                            "SELECT currval('keel.recon_statements_id_seq'), 'sim', 1, "
                            "'payment', 'ch_odd', 'F3', 100, 'XXX', 0, now(); COMMIT")
                     .ok());
    EXPECT_EQ(service->lastSqlState(), QStringLiteral("KL422")) << "an unknown currency";
    (void)service->exec("ROLLBACK");
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_lines"), QStringLiteral("1"));
}

// The simulated channel writes its own statement from its own record; told to
// break some of its lines, each break is found as its class, and the rest —
// a sale, an authorization captured later, a refund — match.
// The simulator writes its statement as a channel would, and keel reads it
// back as that channel's: every line matched but the breaks it was told to
// put in.
class SimulatorLayoutTest : public ReconciliationTest {
protected:
    void roundTrip(const QString &format, const QByteArray &currency)
    {
        startGateway();
        QList<QByteArray> sales;
        for (int i = 1; i <= 4; ++i)
            sales << charge("amount=" + QByteArray::number(1000 * i + 1) + "&currency=" + currency,
                            "recon-layout-" + QByteArray::number(i));
        ASSERT_EQ(
            post("/v1/refunds", "charge=" + sales[1] + "&amount=300", "recon-layout-refund").status,
            200);
        m_day = firstPostingDay();
        const QString path = m_files.filePath(QStringLiteral("statement.") + format);
        const ProcessResult written = runKeel(
            {QStringLiteral("channel-sim"), QStringLiteral("statement"), QStringLiteral("--db"),
             m_service, QStringLiteral("--date"), m_day, QStringLiteral("--format"), format,
             QStringLiteral("--currency"), QString::fromLatin1(currency),
             QStringLiteral("--fee-ppm"), QStringLiteral("6000"), QStringLiteral("--drop"),
             QStringLiteral("1"), QStringLiteral("--invent"), QStringLiteral("1"),
             QStringLiteral("--out"), path});
        ASSERT_EQ(written.exitCode, 0) << qPrintable(written.err);
        const ProcessResult imported =
            recon({QStringLiteral("import"), QStringLiteral("--channel"), QStringLiteral("sim"),
                   QStringLiteral("--format"), format, path});
        ASSERT_EQ(imported.exitCode, 0) << qPrintable(imported.err) << qPrintable(imported.out);
        EXPECT_TRUE(imported.out.contains(QLatin1String("lines=5"))) << qPrintable(imported.out);

        const QJsonObject result = run();
        EXPECT_EQ(result.value(QStringLiteral("matched")).toInt(), 4)
            << QJsonDocument(result).toJson().constData();
        EXPECT_EQ(
            breaks(result),
            (QStringList{
                QStringLiteral("missing_at_keel:ch_neverAsked0000000001:new"),
                QStringLiteral("missing_at_channel:%1:pending").arg(QString::fromUtf8(sales[0]))}));
        // 0.6 % of 2001, 3001 and 4001 (the first sale dropped), the invented
        // line's as the one before it, none on the refund: 12 + 12 + 18 + 24.
        EXPECT_EQ(scalar("SELECT sum(fee) FROM keel.recon_lines"), QStringLiteral("66"))
            << "fees in minor units, read back in the channel's layout";
    }
};

TEST_F(SimulatorLayoutTest, AsAWechatPayTradeBill)
{
    roundTrip(QStringLiteral("wechatpay"), "cny");
}

TEST_F(SimulatorLayoutTest, AsAnAlipayTradeBill)
{
    roundTrip(QStringLiteral("alipay"), "cny");
}

TEST_F(SimulatorLayoutTest, AsAStripePayoutReport)
{
    roundTrip(QStringLiteral("stripe"), "usd");
}

TEST_F(ReconciliationTest, TheSimulatorsStatementWithInjectedBreaksIsFoundClassByClass)
{
    startGateway();
    QList<QByteArray> sales;
    for (int i = 1; i <= 7; ++i)
        sales << charge("amount=" + QByteArray::number(1000 * i) + "&currency=usd",
                        "recon-sim-" + QByteArray::number(i));
    const QByteArray later = charge("amount=800&currency=usd&capture=false", "recon-sim-later");
    ASSERT_EQ(post("/v1/charges/" + later + "/capture", "", "recon-sim-capture").status, 200);
    ASSERT_EQ(post("/v1/refunds", "charge=" + sales[0] + "&amount=250", "recon-sim-refund").status,
              200);
    m_day = firstPostingDay();
    const QStringList feeRate{QStringLiteral("fee-rate"), QStringLiteral("--channel"),
                              QStringLiteral("sim"), QStringLiteral("--ppm"),
                              QStringLiteral("29000")};
    EXPECT_EQ(recon(feeRate, loginAs(QStringLiteral("keel_operator")).conninfo()).exitCode, 1)
        << "a person does not set the contract";
    const ProcessResult contracted = recon(feeRate);
    ASSERT_EQ(contracted.exitCode, 0) << qPrintable(contracted.err);

    const QString path = m_files.filePath(QStringLiteral("sim.csv"));
    const ProcessResult written = runKeel({QStringLiteral("channel-sim"),
                                           QStringLiteral("statement"),
                                           QStringLiteral("--db"),
                                           m_service,
                                           QStringLiteral("--date"),
                                           m_day,
                                           QStringLiteral("--fee-ppm"),
                                           QStringLiteral("29000"),
                                           QStringLiteral("--drop"),
                                           QStringLiteral("1"),
                                           QStringLiteral("--change-amount"),
                                           QStringLiteral("1"),
                                           QStringLiteral("--change-fee"),
                                           QStringLiteral("1"),
                                           QStringLiteral("--duplicate"),
                                           QStringLiteral("1"),
                                           QStringLiteral("--invent"),
                                           QStringLiteral("1"),
                                           QStringLiteral("--out"),
                                           path});
    ASSERT_EQ(written.exitCode, 0) << qPrintable(written.err);
    const ProcessResult imported = import(path);
    ASSERT_EQ(imported.exitCode, 0) << qPrintable(imported.err);
    EXPECT_TRUE(imported.out.contains(QLatin1String("lines=10"))) << qPrintable(imported.out);

    const QJsonObject result = run();
    EXPECT_EQ(result.value(QStringLiteral("matched")).toInt(), 5)
        << QJsonDocument(result).toJson().constData();
    const auto id = [&](int i) {
        return QString::fromUtf8(sales[i]);
    };
    EXPECT_EQ(breaks(result),
              (QStringList{QStringLiteral("missing_at_keel:ch_neverAsked0000000004:new"),
                           QStringLiteral("missing_at_channel:%1:pending").arg(id(0)),
                           QStringLiteral("amount_mismatch:%1:new").arg(id(1)),
                           QStringLiteral("duplicate:%1:new").arg(id(3)),
                           QStringLiteral("fee_variance:%1:new").arg(id(2))}));

    // The statement's fees left clearing for the channel's fee account, once,
    // and the books still add up.
    const QString fees = scalar("SELECT sum(fee) FROM keel.recon_lines");
    EXPECT_NE(fees, QStringLiteral("0"));
    EXPECT_EQ(
        scalar("SELECT sum(e.amount) || ' ' || count(DISTINCT t.id) FROM keel.ledger_entries e "
               "JOIN keel.ledger_accounts a ON a.id = e.account_id "
               "JOIN keel.ledger_transactions t ON t.id = e.transaction_id "
               "WHERE a.code = 'channel_fees:sim:USD' AND t.kind = 'channel_fee'"),
        fees + QStringLiteral(" 1"));
    EXPECT_EQ(import(path).exitCode, 0) << "the same file again";
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_transactions WHERE kind = 'channel_fee'"),
              QStringLiteral("1"));
    const ProcessResult audit = runKeel({QStringLiteral("audit"), QStringLiteral("ledger"),
                                         QStringLiteral("--db"), settings().conninfo()});
    EXPECT_EQ(audit.exitCode, 0) << qPrintable(audit.err);
    EXPECT_EQ(
        scalar("SELECT detail->>'to_ppm' FROM keel.audit_log WHERE action = 'recon_fee_rate'"),
        QStringLiteral("29000"));
}

// A payment through another channel is that channel's, cut in its own zone:
// a WeChat Pay trade bill reconciles it, the simulator's statements do not.
class WechatPayReconciliationTest : public ReconciliationTest {
protected:
    void SetUp() override
    {
        ReconciliationTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        labelChannel(QStringLiteral("wechatpay-test"), QStringLiteral("wechatpay"));
        startGateway();
    }
};

TEST_F(WechatPayReconciliationTest, ItsTradeBillMatchesItsChargesInBeijingTime)
{
    const QByteArray paid = charge("amount=12345&currency=cny", "recon-wechat");
    EXPECT_EQ(scalar("SELECT channel FROM keel.charges WHERE public_id = '" + paid + "'"),
              QStringLiteral("wechatpay"));
    m_day = firstPostingDay("Asia/Shanghai");
    const QString beijing = scalar("SELECT to_char(min(created_at) AT TIME ZONE 'Asia/Shanghai', "
                                   "'YYYY-MM-DD HH24:MI:SS') FROM keel.ledger_transactions");
    const QString bill = file(
        QStringLiteral("tradebill.csv"),
        "交易时间,公众账号ID,商户号,特约商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,"
        "交易状态,付款银行,货币种类,应结订单金额,代金券金额,微信退款单号,商户退款单号,退款金额,"
        "充值券退款金额,退款类型,退款状态,商品名称,商户数据包,手续费,费率,订单金额,申请退款金额,"
        "费率备注\r\n",
        {QStringLiteral("`%3,`wx0000000000000001,`10000100,`,`,`4200009999202612010000000001,`%4,"
                        "`oUser,`NATIVE,`SUCCESS,`CMC,`CNY,`123.45,`0.00,`0,`0,`0.00,`0.00,`,`,"
                        "`keel,`,`0.74,`0.60%,`123.45,`0.00,`")
             .replace(QLatin1String("%3"), beijing)
             .replace(QLatin1String("%4"), QString::fromUtf8(paid)),
         QStringLiteral("总交易单数,应结订单总金额,退款总金额,充值券退款总金额,手续费总金额,"
                        "订单总金额,申请退款总金额"),
         QStringLiteral("`1,`123.45,`0.00,`0.00,`0.74,`123.45,`0.00")});
    const ProcessResult imported =
        recon({QStringLiteral("import"), QStringLiteral("--channel"), QStringLiteral("wechatpay"),
               QStringLiteral("--format"), QStringLiteral("wechatpay"), bill});
    ASSERT_EQ(imported.exitCode, 0) << qPrintable(imported.err);
    const QJsonObject result = run(QStringLiteral("wechatpay"));
    EXPECT_EQ(result.value(QStringLiteral("matched")).toInt(), 1);
    EXPECT_TRUE(result.value(QStringLiteral("breaks")).toArray().isEmpty())
        << QJsonDocument(result).toJson().constData();
    const QJsonObject sim = run(QStringLiteral("sim"), firstPostingDay());
    EXPECT_EQ(sim.value(QStringLiteral("matched")).toInt(), 0);
    EXPECT_TRUE(sim.value(QStringLiteral("breaks")).toArray().isEmpty())
        << "the simulator's books hold no WeChat Pay charge";
    const HttpReply refund = post("/v1/refunds", "charge=" + paid + "&amount=100", "recon-wx-ref");
    ASSERT_EQ(refund.status, 200) << refund.body.constData();
    EXPECT_EQ(scalar("SELECT channel FROM keel.refunds"), QStringLiteral("wechatpay"))
        << "a refund goes through its charge's channel";
}

// WeChat Pay reverses a paid order on keel's request and gives the money
// back: its bill reports the payment one day and a REVOKED row the next. The
// second day's run sends the first day to run again, which nets the two: a
// charge keel failed matches, one keel captured is a status_mismatch.
TEST_F(WechatPayReconciliationTest, ARevokedOrderNetsAgainstItsPaymentOnThePaymentsDay)
{
    const QByteArray kept = charge("amount=5000&currency=cny", "recon-wx-kept");
    const HttpReply declined =
        post("/v1/charges", "amount=2000&currency=cny&source=tok_chargeDeclined", "recon-wx-fail");
    ASSERT_EQ(declined.status, 402) << declined.body.constData();
    const QByteArray failed =
        scalar("SELECT public_id FROM keel.charges WHERE amount = 2000").toUtf8();
    ASSERT_FALSE(failed.isEmpty());
    m_day = firstPostingDay("Asia/Shanghai");
    const QByteArray header =
        "交易时间,公众账号ID,商户号,特约商户号,设备号,微信订单号,商户订单号,用户标识,交易类型,"
        "交易状态,付款银行,货币种类,应结订单金额,代金券金额,微信退款单号,商户退款单号,退款金额,"
        "充值券退款金额,退款类型,退款状态,商品名称,商户数据包,手续费,费率,订单金额,申请退款金额,"
        "费率备注\r\n";
    // An order's row of the first day (paid), or of the next (given back,
    // as WeChat Pay's refund of it under the order's numbers).
    enum class Row { Paid, Revoked };
    const auto row = [](Row kind, const QByteArray &order, const char *id, const char *yuan,
                        const char *fee) {
        const QString layout =
            kind == Row::Paid
                ? QStringLiteral("`%1 10:00:00,`wx0000000000000001,`10000100,`,`,`%2,`%3,`oUser,"
                                 "`MICROPAY,`SUCCESS,`CMC,`CNY,`%4,`0.00,`0,`0,`0.00,`0.00,`,`,"
                                 "`keel,`,`%5,`0.60%,`%4,`0.00,`")
                : QStringLiteral("`%1 09:30:00,`wx0000000000000001,`10000100,`,`,`%2,`%3,`oUser,"
                                 "`MICROPAY,`REVOKED,`CMC,`CNY,`0.00,`0.00,`503%2,`%3,`%4,`0.00,"
                                 "`ORIGINAL,`SUCCESS,`keel,`,`-%5,`0.60%,`0.00,`%4,`");
        return layout.arg(kind == Row::Paid ? QStringLiteral("%1") : QStringLiteral("%2"),
                          QLatin1String(id), QString::fromUtf8(order), QLatin1String(yuan),
                          QLatin1String(fee));
    };
    const QString summary = QStringLiteral("总交易单数,应结订单总金额,退款总金额,充值券退款总金额,"
                                           "手续费总金额,订单总金额,申请退款总金额");
    const QString paidBill =
        file(QStringLiteral("paid.csv"), header,
             {row(Row::Paid, kept, "4200009999202612010000000011", "50.00", "0.30"),
              row(Row::Paid, failed, "4200009999202612010000000012", "20.00", "0.12"), summary,
              QStringLiteral("`2,`70.00,`0.00,`0.00,`0.42,`70.00,`0.00")});
    const QString revokedBill =
        file(QStringLiteral("revoked.csv"), header,
             {row(Row::Revoked, kept, "4200009999202612010000000011", "50.00", "0.30"),
              row(Row::Revoked, failed, "4200009999202612010000000012", "20.00", "0.12"), summary,
              QStringLiteral("`2,`0.00,`70.00,`0.00,`-0.42,`0.00,`70.00")});
    const auto importBill = [&](const QString &path) {
        return recon({QStringLiteral("import"), QStringLiteral("--channel"),
                      QStringLiteral("wechatpay"), QStringLiteral("--format"),
                      QStringLiteral("wechatpay"), path});
    };
    const ProcessResult paid = importBill(paidBill);
    ASSERT_EQ(paid.exitCode, 0) << qPrintable(paid.err);
    QJsonObject first = run(QStringLiteral("wechatpay"));
    EXPECT_EQ(first.value(QStringLiteral("matched")).toInt(), 1);
    EXPECT_EQ(
        breaks(first),
        QStringList{QStringLiteral("status_mismatch:%1:pending").arg(QString::fromUtf8(failed))})
        << "the channel took money for a charge keel failed, until it says otherwise";

    const ProcessResult revoked = importBill(revokedBill);
    ASSERT_EQ(revoked.exitCode, 0) << qPrintable(revoked.err);
    const QString nextDay = QDate::fromString(m_day, Qt::ISODate).addDays(1).toString(Qt::ISODate);
    EXPECT_TRUE(revoked.out.contains(QLatin1String("days=") + nextDay)) << qPrintable(revoked.out);
    const QJsonObject second = run(QStringLiteral("wechatpay"), nextDay);
    EXPECT_EQ(second.value(QStringLiteral("reopened")).toString(), m_day);
    EXPECT_TRUE(second.value(QStringLiteral("breaks")).toArray().isEmpty())
        << "both orders are the payment day's";
    EXPECT_EQ(
        scalar("SELECT string_agg(class || ' ' || reference || ' ' || status || ' ' || "
               "channel_amount || ' ' || keel_amount, '; ' ORDER BY id) "
               "FROM keel.recon_breaks"),
        QStringLiteral("status_mismatch %1 resolved 2000 0; status_mismatch %2 pending 0 5000")
            .arg(QString::fromUtf8(failed), QString::fromUtf8(kept)));
    EXPECT_EQ(scalar("SELECT matched FROM keel.recon_runs ORDER BY id DESC LIMIT 1"),
              QStringLiteral("1"))
        << "the failed charge's order, paid and given back";
    EXPECT_EQ(scalar("SELECT count(*) || ' ' || count(*) FILTER (WHERE reverses) "
                     "FROM keel.recon_lines"),
              QStringLiteral("4 2"));
    const ProcessResult audit = runKeel({QStringLiteral("audit"), QStringLiteral("ledger"),
                                         QStringLiteral("--db"), settings().conninfo()});
    EXPECT_EQ(audit.exitCode, 0) << qPrintable(audit.err) << qPrintable(audit.out);
}

} // namespace
