#include "ReconciliationFixture.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QSqlError>
#include <QSqlQuery>

using namespace keel;
using keel::test::ProcessResult;
using keel::test::runKeel;

namespace {

using keel::test::item;
using keel::test::ReconciliationTest;

// keel recon import, verify and channel-sim statement as a script runs them:
// exit codes, the one line a refusal prints, what is stored.

// A run is verified on the lines and postings its snapshot saw (migration
// 0049): a later file reporting a line of its day does not change it, a
// forged result does.
TEST_F(ReconciliationTest, ARunVerifiesOnWhatItReadAndAForgedResultDoesNot)
{
    startGateway();
    ASSERT_NO_FATAL_FAILURE(reportOnePayment("recon-verify"));
    const QJsonObject result = run();
    EXPECT_EQ(result.value(QStringLiteral("matched")).toInt(), 1);
    EXPECT_TRUE(result.value(QStringLiteral("breaks")).toArray().isEmpty());
    const QString runId = QString::number(result.value(QStringLiteral("run")).toInteger());
    const ProcessResult verified =
        recon({QStringLiteral("verify"), QStringLiteral("--run"), runId});
    EXPECT_EQ(verified.exitCode, 0) << qPrintable(verified.err);
    EXPECT_TRUE(verified.out.contains(result.value(QStringLiteral("result_sha256")).toString()));
    // A run reads the day's lines on a second session; a login that may open
    // only one reads them on that one, to the same result.
    const ConnectionSettings solo = loginAs(QStringLiteral("keel_gateway"));
    ASSERT_TRUE(QSqlQuery(db()).exec(QStringLiteral("ALTER ROLE %1 CONNECTION LIMIT 1")
                                         .arg(solo.value(QStringLiteral("user")))));
    const ProcessResult alone =
        recon({QStringLiteral("verify"), QStringLiteral("--run"), runId}, solo.conninfo());
    EXPECT_EQ(alone.exitCode, 0) << qPrintable(alone.err);
    EXPECT_TRUE(alone.out.contains(result.value(QStringLiteral("result_sha256")).toString()));

    ASSERT_EQ(import(statement(QStringLiteral("b.csv"),
                               {QStringLiteral("ch_extraLine000001,S2,payment,1.00,USD,0,"
                                               "%1T13:00:00Z")}))
                  .exitCode,
              0);
    EXPECT_EQ(run().value(QStringLiteral("breaks")).toArray().size(), 1)
        << "run again, the day has the later line";
    const ProcessResult later = recon({QStringLiteral("verify"), QStringLiteral("--run"), runId});
    EXPECT_EQ(later.exitCode, 0) << qPrintable(later.err);
    EXPECT_TRUE(later.out.contains(QLatin1String("on the lines and postings it read")))
        << qPrintable(later.out);

    ASSERT_TRUE(QSqlQuery(db()).exec(
        QStringLiteral("SET session_replication_role = replica; "
                       "UPDATE keel.recon_runs SET result_sha256 = sha256('forged'::bytea) "
                       "WHERE id = %1; RESET session_replication_role")
            .arg(runId)));
    const ProcessResult forged = recon({QStringLiteral("verify"), QStringLiteral("--run"), runId});
    EXPECT_EQ(forged.exitCode, 1);
    EXPECT_TRUE(forged.err.contains(QLatin1String("the lines and postings it read now give")))
        << qPrintable(forged.err);
}

// A run with no snapshot (recorded before v49) or one ahead of the cluster's
// transaction counter (a restore from a dump since) is recomputed on today's
// data, and the command says which; a later line of its day then shows.
TEST_F(ReconciliationTest, ARunWithoutAUsableSnapshotIsJudgedOnTodaysDataAndSaysSo)
{
    startGateway();
    ASSERT_NO_FATAL_FAILURE(reportOnePayment("recon-verify-basis"));
    const QString runId = QString::number(run().value(QStringLiteral("run")).toInteger());
    const auto withSnapshot = [&](const QString &snapshot) {
        EXPECT_TRUE(QSqlQuery(db()).exec(
            QStringLiteral("SET session_replication_role = replica; "
                           "UPDATE keel.recon_runs SET snapshot = %1 WHERE id = %2; "
                           "RESET session_replication_role")
                .arg(snapshot, runId)));
        return recon({QStringLiteral("verify"), QStringLiteral("--run"), runId});
    };
    const ProcessResult before = withSnapshot(QStringLiteral("NULL"));
    EXPECT_EQ(before.exitCode, 0) << qPrintable(before.err);
    EXPECT_TRUE(before.out.contains(QLatin1String("(a run before schema v49)")))
        << qPrintable(before.out);
    const ProcessResult restored = withSnapshot(QStringLiteral("'4000000000:4000000000:'"));
    EXPECT_EQ(restored.exitCode, 0) << qPrintable(restored.err);
    EXPECT_TRUE(restored.out.contains(QLatin1String("restored from a dump")))
        << qPrintable(restored.out);

    ASSERT_EQ(import(statement(QStringLiteral("b.csv"),
                               {QStringLiteral("ch_extraLine000002,S2,payment,1.00,USD,0,"
                                               "%1T13:00:00Z")}))
                  .exitCode,
              0);
    const ProcessResult today = recon({QStringLiteral("verify"), QStringLiteral("--run"), runId});
    EXPECT_EQ(today.exitCode, 1) << "today's data has the later line";
    EXPECT_TRUE(today.err.contains(QLatin1String("restored from a dump"))) << qPrintable(today.err);
}

// Which record a channel's id names is read as the run saw it too (migration
// 0049): an id the service gives a record after the run leaves the run's
// verification as it was, though the day run again now matches by it. Were
// it read as it is now, the service could make a run it forged verify. A
// record's own id, channel and currency are not the service's to change.
TEST_F(ReconciliationTest, AChannelIdGivenAfterARunLeavesItsVerificationAsItWas)
{
    startGateway();
    const QString paid = QString::fromUtf8(charge("amount=1000&currency=usd", "recon-verify-id"));
    m_day = firstPostingDay();
    ASSERT_TRUE(QSqlQuery(db()).exec(
        QStringLiteral("UPDATE keel.charges SET channel_reference = NULL WHERE public_id = '%1'")
            .arg(paid)));
    ASSERT_EQ(import(statement(QStringLiteral("a.csv"),
                               {QStringLiteral("ord-unknown-0001,pi_later0001,payment,10.00,USD,0,"
                                               "%1T12:00:00Z")}))
                  .exitCode,
              0);
    const QJsonObject result = run();
    EXPECT_FALSE(result.value(QStringLiteral("breaks")).toArray().isEmpty());
    const QString runId = QString::number(result.value(QStringLiteral("run")).toInteger());

    QSqlQuery service(as(QStringLiteral("keel_gateway")));
    ASSERT_TRUE(service.exec(
        QStringLiteral(
            "UPDATE keel.charges SET channel_reference = 'pi_later0001' WHERE public_id = '%1'")
            .arg(paid)))
        << qPrintable(service.lastError().text());
    const QJsonObject again = run();
    EXPECT_TRUE(again.value(QStringLiteral("breaks")).toArray().isEmpty())
        << "run again, the day matches the line by the channel's id";
    const ProcessResult verified =
        recon({QStringLiteral("verify"), QStringLiteral("--run"), runId});
    EXPECT_EQ(verified.exitCode, 0) << qPrintable(verified.err);
    EXPECT_TRUE(verified.out.contains(QLatin1String("on the lines and postings it read")))
        << qPrintable(verified.out);
    // An auditor checks the service's runs with a login of their own.
    const ProcessResult audited = recon({QStringLiteral("verify"), QStringLiteral("--run"), runId},
                                        loginAs(QStringLiteral("keel_auditor")).conninfo());
    EXPECT_EQ(audited.exitCode, 0) << qPrintable(audited.err);

    EXPECT_FALSE(service.exec(
        QStringLiteral("UPDATE keel.charges SET currency = 'EUR' WHERE public_id = '%1'")
            .arg(paid)));
    EXPECT_EQ(service.lastError().nativeErrorCode(), QLatin1String("KL422"));
    // Neither its row id (which its id history names) nor when it was made.
    for (const char *change : {"public_id = 'ch_renamed000001'", "id = DEFAULT",
                               "created_at = now() - interval '3 days'"}) {
        EXPECT_FALSE(
            service.exec(QStringLiteral("UPDATE keel.charges SET %1 WHERE public_id = '%2'")
                             .arg(QLatin1String(change), paid)))
            << change;
        EXPECT_EQ(service.lastError().nativeErrorCode(), QLatin1String("KL422")) << change;
    }
}

// Records a superuser loaded in bulk with the triggers off have no history
// of their channel ids: a run and its verification both read the id they carry.
TEST_F(ReconciliationTest, ARecordLoadedWithoutItsIdHistoryIsVerifiedOnTheIdItCarries)
{
    startGateway();
    const QString paid = QString::fromUtf8(charge("amount=1000&currency=usd", "recon-bulk-id"));
    m_day = firstPostingDay();
    ASSERT_TRUE(QSqlQuery(db()).exec(
        QStringLiteral("SET session_replication_role = replica; "
                       "UPDATE keel.charges SET channel_reference = 'pi_bulk0001' "
                       "WHERE public_id = '%1'; "
                       "DELETE FROM keel.record_channel_references h USING keel.charges c "
                       "WHERE h.kind = 'payment' AND h.record_id = c.id AND c.public_id = '%1'; "
                       "RESET session_replication_role")
            .arg(paid)));
    ASSERT_EQ(import(statement(QStringLiteral("a.csv"),
                               {QStringLiteral("ord-bulk-0001,pi_bulk0001,payment,10.00,USD,0,"
                                               "%1T12:00:00Z")}))
                  .exitCode,
              0);
    const QJsonObject result = run();
    EXPECT_EQ(result.value(QStringLiteral("matched")).toInt(), 1);
    EXPECT_TRUE(result.value(QStringLiteral("breaks")).toArray().isEmpty());
    const QString runId = QString::number(result.value(QStringLiteral("run")).toInteger());
    const ProcessResult verified =
        recon({QStringLiteral("verify"), QStringLiteral("--run"), runId});
    EXPECT_EQ(verified.exitCode, 0) << qPrintable(verified.err);
    // The service gives it another id after the run: the id the run read is
    // kept first, and the run still verifies on it.
    QSqlQuery service(as(QStringLiteral("keel_gateway")));
    ASSERT_TRUE(service.exec(
        QStringLiteral(
            "UPDATE keel.charges SET channel_reference = 'pi_bulk0002' WHERE public_id = '%1'")
            .arg(paid)))
        << qPrintable(service.lastError().text());
    const ProcessResult after = recon({QStringLiteral("verify"), QStringLiteral("--run"), runId});
    EXPECT_EQ(after.exitCode, 0) << qPrintable(after.err);
}

// The channels' own layouts refused through the command a script runs: exit
// 2, one line that starts with the check that failed, nothing stored.
TEST_F(ReconciliationTest, EachLayoutsBrokenFileIsRefusedWholeByTheCommand)
{
    startGateway();
    const auto kept = [](const char *name) -> QString {
        return QStringLiteral(KEEL_SOURCE_DIR "/tests/data/recon/") + QLatin1String(name);
    };
    QFile sha1File(kept("wechatpay-tradebill-all.sha1"));
    ASSERT_TRUE(sha1File.open(QIODevice::ReadOnly));
    QString wrongSha1 = QString::fromLatin1(sha1File.readAll().trimmed());
    wrongSha1[0] = wrongSha1[0] == u'0' ? u'1' : u'0';
    const struct {
        const char *format;
        const char *file;
        const char *check;
        bool wrongSha1;
    } broken[] = {
        {"alipay", "alipay-tradebill-totals-off.zip", "statement_totals", false},
        {"alipay", "alipay-tradebill-bad-gbk.zip", "statement_encoding", false},
        {"wechatpay", "wechatpay-tradebill-totals-off.csv", "statement_totals", false},
        {"wechatpay", "wechatpay-tradebill-bad-utf8.csv", "statement_encoding", false},
        {"wechatpay", "wechatpay-tradebill-truncated.csv.gz", "statement_encoding", false},
        {"wechatpay", "wechatpay-tradebill-all.csv", "statement_digest", true},
        {"stripe", "stripe-payout-totals-off.csv", "statement_totals", false},
        {"stripe", "stripe-payout-bad-utf8.csv", "statement_encoding", false},
        {"stripe", "stripe-payout-adjustment.csv", "statement_unsupported", false},
    };
    for (const auto &file : broken) {
        QStringList arguments{QStringLiteral("import"), QStringLiteral("--channel"),
                              QStringLiteral("sim"), QStringLiteral("--format"),
                              QLatin1String(file.format)};
        if (file.wrongSha1)
            arguments << QStringLiteral("--sha1") << wrongSha1;
        const ProcessResult refused = recon(arguments << kept(file.file));
        EXPECT_EQ(refused.exitCode, 2) << file.file;
        EXPECT_TRUE(refused.err.startsWith(QLatin1String("keel recon: ") +
                                           QLatin1String(file.check) + QLatin1String(": ")))
            << file.file << ": " << qPrintable(refused.err);
        EXPECT_EQ(refused.err.count(u'\n'), 1) << qPrintable(refused.err);
    }
    // A ZIP cut short on the way: its central directory is gone.
    QFile zip(kept("alipay-tradebill.zip"));
    ASSERT_TRUE(zip.open(QIODevice::ReadOnly));
    const QString cut = m_files.filePath(QStringLiteral("alipay-cut-short.zip"));
    QFile out(cut);
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(zip.readAll().chopped(30));
    out.close();
    const ProcessResult truncated =
        recon({QStringLiteral("import"), QStringLiteral("--channel"), QStringLiteral("sim"),
               QStringLiteral("--format"), QStringLiteral("alipay"), cut});
    EXPECT_EQ(truncated.exitCode, 2);
    EXPECT_TRUE(truncated.err.startsWith(QLatin1String("keel recon: statement_encoding: ")))
        << qPrintable(truncated.err);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_statements"), QStringLiteral("0"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_lines"), QStringLiteral("0"));
}

// The simulator's statement of a channel's day is cut where keel cuts that
// channel's days: 20:00 UTC on the 30th is the 1st in Beijing.
TEST_F(ReconciliationTest, TheSimulatorsStatementOfAChannelsDayIsCutInItsZone)
{
    startGateway();
    const QByteArray paid = charge("amount=1000&currency=usd", "recon-zone");
    ASSERT_TRUE(QSqlQuery(db()).exec(
        QStringLiteral("UPDATE keel.sim_channel_operations SET created_at = '2026-11-30 20:00Z' "
                       "WHERE reference = '%1'")
            .arg(QString::fromUtf8(paid))));
    const auto statementOf = [&](const QStringList &day) {
        const ProcessResult written =
            runKeel(QStringList{QStringLiteral("channel-sim"), QStringLiteral("statement"),
                                QStringLiteral("--db"), m_service} +
                    day);
        EXPECT_EQ(written.exitCode, 0) << qPrintable(written.err);
        return written.out.contains(QString::fromUtf8(paid)) ? QStringLiteral("has it")
                                                             : QStringLiteral("not");
    };
    const QString first = QStringLiteral("2026-12-01");
    EXPECT_EQ(statementOf({QStringLiteral("--date"), first}), QStringLiteral("not"));
    EXPECT_EQ(statementOf({QStringLiteral("--date"), QStringLiteral("2026-11-30")}),
              QStringLiteral("has it"));
    EXPECT_EQ(statementOf({QStringLiteral("--date"), first, QStringLiteral("--channel"),
                           QStringLiteral("wechatpay")}),
              QStringLiteral("has it"));
    const ProcessResult unknown =
        runKeel({QStringLiteral("channel-sim"), QStringLiteral("statement"), QStringLiteral("--db"),
                 m_service, QStringLiteral("--date"), first, QStringLiteral("--channel"),
                 QStringLiteral("paypal")});
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_TRUE(unknown.err.contains(QLatin1String("no channel \"paypal\"")))
        << qPrintable(unknown.err);
}

TEST_F(ReconciliationTest, ABrokenStatementIsRefusedWholeAndTheSameFileIsStoredOnce)
{
    startGateway();
    m_day = QStringLiteral("2026-12-01");
    const QString broken =
        statement(QStringLiteral("broken.csv"),
                  {QStringLiteral("ch_goodLine00000001,S1,payment,1.00,USD,0,%1T12:00:00Z"),
                   QStringLiteral("ch_badAmount000001,S2,payment,1.005,USD,0,%1T12:00:00Z")});
    const ProcessResult refused = import(broken);
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_TRUE(refused.err.contains(QLatin1String("line 3 amount"))) << qPrintable(refused.err);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_lines"), QStringLiteral("0"));

    const QString good = statement(QStringLiteral("good.csv"),
                                   {QStringLiteral("ch_goodLine00000001,S1,payment,1.00,USD,0,"
                                                   "%1T12:00:00Z")});
    const ProcessResult first = import(good);
    const ProcessResult second = import(good);
    ASSERT_EQ(first.exitCode, 0) << qPrintable(first.err);
    EXPECT_EQ(second.exitCode, 0);
    EXPECT_EQ(first.out, second.out) << "the same statement id and line count";
    EXPECT_TRUE(second.err.contains(QLatin1String("imported before")));
    // Recognised, yet still checked as asked: a SHA1 that does not match,
    // or another format, is refused, not reported as imported.
    const ProcessResult wrongDigest =
        recon({QStringLiteral("import"), QStringLiteral("--channel"), QStringLiteral("sim"),
               QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("--sha1"),
               QString(40, u'0'), good});
    EXPECT_EQ(wrongDigest.exitCode, 2);
    EXPECT_TRUE(wrongDigest.err.contains(QLatin1String("SHA1"))) << qPrintable(wrongDigest.err);
    const ProcessResult otherFormat =
        recon({QStringLiteral("import"), QStringLiteral("--channel"), QStringLiteral("sim"),
               QStringLiteral("--format"), QStringLiteral("wechatpay"), good});
    EXPECT_EQ(otherFormat.exitCode, 2);
    EXPECT_TRUE(otherFormat.err.contains(QLatin1String("imported as csv")))
        << qPrintable(otherFormat.err);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_lines"), QStringLiteral("1"));
    // The service login has the planner count the lines it stored (never
    // counted before: -1), so that the day's run is planned knowing them.
    EXPECT_EQ(scalar("SELECT reltuples FROM pg_class WHERE oid = 'keel.recon_lines'::regclass"),
              QStringLiteral("1"));

    const ProcessResult unknown =
        recon({QStringLiteral("import"), QStringLiteral("--channel"), QStringLiteral("paypal"),
               QStringLiteral("--format"), QStringLiteral("csv"), good});
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_TRUE(unknown.err.contains(QLatin1String("no channel \"paypal\"")));

    // The same lines in other bytes (another download, CRLF, gzip) are the
    // same lines: refused, not stored twice.
    QString again = statement(QStringLiteral("again.csv"),
                              {QStringLiteral("ch_goodLine00000001,S1,payment,1.00,USD,0,"
                                              "%1T12:00:00Z"),
                               QStringLiteral("ch_otherLine0000001,S9,payment,2.00,USD,0,"
                                              "%1T12:00:00Z")});
    const ProcessResult overlap = import(again);
    EXPECT_EQ(overlap.exitCode, 2);
    EXPECT_TRUE(overlap.err.contains(QLatin1String("already imported"))) << qPrintable(overlap.err);

    // People read reconciliation and write none of it.
    const QString other = statement(QStringLiteral("other.csv"),
                                    {QStringLiteral("ch_otherLine0000001,S2,payment,2.00,USD,0,"
                                                    "%1T12:00:00Z")});
    for (const char *role : {"keel_operator", "keel_approver", "keel_auditor"}) {
        const ProcessResult denied = import(other, loginAs(QString::fromLatin1(role)).conninfo());
        EXPECT_EQ(denied.exitCode, 1) << role << ": " << qPrintable(denied.err);
        EXPECT_TRUE(denied.err.contains(QLatin1String("permission denied")))
            << qPrintable(denied.err);
    }
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_statements"), QStringLiteral("1"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_lines"), QStringLiteral("1"));
}

} // namespace
