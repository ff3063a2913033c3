#include "ReconciliationFixture.h"
#include "WaitUntil.h"

#include "core/db/LibpqConnection.h"

using namespace keel;
using keel::test::ProcessResult;
using keel::test::waitUntil;

namespace {

using keel::test::ReconciliationTest;

// `count` payment lines of the test's day; the last one's amount is `last`.
QStringList paymentLines(int count, const char *last)
{
    QStringList lines;
    lines.reserve(count);
    for (int i = 1; i <= count; ++i)
        lines << QStringLiteral("ch_stream%1,SS%2,payment,%3,USD,0,%4T12:00:00Z")
                     .arg(i, 9, 10, QLatin1Char('0'))
                     .arg(i)
                     .arg(i == count ? QString::fromLatin1(last) : QStringLiteral("1.00"))
                     .arg(QStringLiteral("%1"));
    return lines;
}

// A statement's lines reach the server while the file is still being read.
// One refused at its last line, long after the first megabyte of its lines
// was sent, leaves nothing stored; the same file corrected is stored with
// the count of lines the database stored.
TEST_F(ReconciliationTest, AStatementRefusedAfterItsLinesWereSentLeavesNothingStored)
{
    startGateway();
    m_day = QStringLiteral("2026-12-01");
    constexpr int Lines = 40000; // about three megabytes of COPY rows
    const ProcessResult refused =
        import(statement(QStringLiteral("refused.csv"), paymentLines(Lines, "1.005")));
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_TRUE(refused.err.contains(QStringLiteral("line %1 amount").arg(Lines + 1)))
        << qPrintable(refused.err);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_statements"), QStringLiteral("0"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_lines"), QStringLiteral("0"));
    // The server had stored rows of the refused file (counted inserted,
    // though rolled back) before its last line was read.
    const QByteArray inserted = "SELECT n_tup_ins >= 20000 FROM pg_stat_user_tables "
                                "WHERE relid = 'keel.recon_lines'::regclass";
    EXPECT_TRUE(waitUntil([&] { return scalar(inserted) == QLatin1String("t"); }))
        << "rows were sent while the file was read";

    const ProcessResult stored =
        import(statement(QStringLiteral("corrected.csv"), paymentLines(Lines, "2.00")));
    ASSERT_EQ(stored.exitCode, 0) << qPrintable(stored.err);
    EXPECT_TRUE(stored.out.contains(QStringLiteral("lines=%1").arg(Lines)))
        << qPrintable(stored.out);
    EXPECT_EQ(scalar("SELECT line_count FROM keel.recon_statements"), QString::number(Lines));
    EXPECT_EQ(scalar("SELECT detail ->> 'lines' FROM keel.audit_log "
                     "WHERE action = 'recon_import'"),
              QString::number(Lines))
        << "audited as it committed, with the count stored";
}

// The count is the database's: the service login cannot state one.
TEST_F(ReconciliationTest, AStatementsLineCountIsWhatWasStored)
{
    startGateway();
    auto service = LibpqConnection::open(m_serviceLogin);
    ASSERT_TRUE(service.ok());
    Result<QString> counted = service->scalar(
        "INSERT INTO keel.recon_statements (channel, format, file_sha256, line_count) "
        "VALUES ('sim', 'csv', sha256('no lines'::bytea), 7) RETURNING line_count");
    ASSERT_TRUE(counted.ok()) << qPrintable(counted.error().message);
    EXPECT_EQ(*counted, QStringLiteral("0"));
}

// The days an import names for running are the channel's, cut in its zone
// as a run cuts them: Beijing's day begins at 16:00 UTC.
TEST_F(ReconciliationTest, AnImportNamesTheDaysOfItsLinesInTheChannelsZone)
{
    startGateway();
    m_day = QStringLiteral("2026-12-01");
    const QString path =
        statement(QStringLiteral("beijing.csv"),
                  {QStringLiteral("ch_beijing00000001,B1,payment,1.00,CNY,0,%1T15:59:59.999Z"),
                   QStringLiteral("ch_beijing00000002,B2,payment,1.00,CNY,0,%1T16:00:00Z"),
                   QStringLiteral("ch_beijing00000003,B3,payment,1.00,CNY,0,%2T15:45:00Z")});
    const ProcessResult imported =
        recon({QStringLiteral("import"), QStringLiteral("--channel"), QStringLiteral("alipay"),
               QStringLiteral("--format"), QStringLiteral("csv"), path});
    EXPECT_EQ(imported.exitCode, 0) << qPrintable(imported.err);
    EXPECT_TRUE(imported.out.contains(QLatin1String(" days=2026-12-01,2026-12-02\n")))
        << qPrintable(imported.out);
    // The same file again names the same days, read back from what was stored.
    const ProcessResult again =
        recon({QStringLiteral("import"), QStringLiteral("--channel"), QStringLiteral("alipay"),
               QStringLiteral("--format"), QStringLiteral("csv"), path});
    EXPECT_TRUE(again.out.contains(QLatin1String(" days=2026-12-01,2026-12-02")))
        << qPrintable(again.out);
}

// The fees are booked and the import audited as it commits. A writer who has
// either fire early cannot add lines after it: lines the audit would not
// count, or whose fees would stay in clearing.
TEST_F(ReconciliationTest, AStatementTakesNoLinesOnceItsFeesOrItsAuditHaveRun)
{
    startGateway();
    for (const QByteArray trigger : {"keel.recon_book_fees", "keel.recon_statements_audit"}) {
        auto service = LibpqConnection::open(m_serviceLogin);
        ASSERT_TRUE(service.ok());
        const QByteArray line =
            "INSERT INTO keel.recon_lines (statement_id, channel, line_no, kind, reference, "
            "channel_reference, amount, currency, fee, occurred_at) SELECT "
            "currval('keel.recon_statements_id_seq'), 'sim', ";
        ASSERT_TRUE(service
                        ->exec("BEGIN; INSERT INTO keel.recon_statements (channel, format, "
                               "file_sha256, line_count) VALUES ('sim', 'csv', "
                               "sha256('sealed'::bytea), 0); " +
                               line + "1, 'payment', 'ch_sealed1', 'Z1', 100, 'USD', 5, now()")
                        .ok());
        ASSERT_TRUE(service->exec("SET CONSTRAINTS " + trigger + " IMMEDIATE").ok());
        EXPECT_FALSE(
            service->exec(line + "2, 'payment', 'ch_sealed2', 'Z2', 100, 'USD', 5, now()").ok())
            << trigger.constData();
        EXPECT_EQ(service->lastSqlState(), QStringLiteral("KL422")) << trigger.constData();
        (void)service->exec("ROLLBACK");
    }
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_lines"), QStringLiteral("0"));
    expectBooksAgree();
}

} // namespace
