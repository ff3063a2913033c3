#include "GatewayTest.h"
#include "KeelProcess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

using namespace keel;
using keel::test::ProcessResult;
using keel::test::runKeel;

namespace {

// Settlement staff reconcile as logins of keel_operator; the charges and the
// refund go through the gateway as its keel_gateway login.
class ReconciliationTest : public keel::test::RunningGatewayTest {
protected:
    void SetUp() override
    {
        RunningGatewayTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        m_operator = loginAs(QStringLiteral("keel_operator")).conninfo();
        ASSERT_TRUE(m_files.isValid());
    }

    QByteArray charge(const QByteArray &form, const QByteArray &key)
    {
        const HttpReply reply = post("/v1/charges", form + "&source=tok_visa", key);
        EXPECT_EQ(reply.status, 200) << reply.body.constData();
        return QJsonDocument::fromJson(reply.body)
            .object()
            .value(QStringLiteral("id"))
            .toString()
            .toUtf8();
    }

    // A statement in keel's CSV form, lines at noon of the business day.
    QString statement(const QString &name, const QStringList &lines)
    {
        QByteArray text = "reference,channel_reference,type,amount,currency,fee,occurred_at\n";
        for (const QString &line : lines)
            text += line.arg(m_day).toUtf8() + '\n';
        const QString path = m_files.filePath(name);
        QFile file(path);
        EXPECT_TRUE(file.open(QIODevice::WriteOnly));
        file.write(text);
        return path;
    }

    ProcessResult recon(const QStringList &arguments)
    {
        return runKeel(QStringList{QStringLiteral("recon")} + arguments +
                       QStringList{QStringLiteral("--db"), m_operator});
    }

    ProcessResult import(const QString &path)
    {
        return recon({QStringLiteral("import"), QStringLiteral("--channel"), QStringLiteral("sim"),
                      QStringLiteral("--format"), QStringLiteral("csv"), path});
    }

    QJsonObject run()
    {
        const ProcessResult result =
            recon({QStringLiteral("run"), QStringLiteral("--channel"), QStringLiteral("sim"),
                   QStringLiteral("--date"), m_day, QStringLiteral("--json")});
        EXPECT_EQ(result.exitCode, 0) << qPrintable(result.err);
        return QJsonDocument::fromJson(result.out.toUtf8()).object();
    }

    // "class:reference:status" of each break, with its amounts kept apart.
    static QStringList breaks(const QJsonObject &result)
    {
        QStringList out;
        for (const QJsonValue &found : result.value(QStringLiteral("breaks")).toArray()) {
            const QJsonObject o = found.toObject();
            out << o.value(QStringLiteral("class")).toString() + u':' +
                       o.value(QStringLiteral("reference")).toString() + u':' +
                       o.value(QStringLiteral("status")).toString();
        }
        return out;
    }

    QString m_operator;
    QString m_day;
    QTemporaryDir m_files;
};

QString item(const QByteArray &reference, const char *rest)
{
    return QString::fromUtf8(reference) + QString::fromLatin1(rest);
}

TEST_F(ReconciliationTest, EachDifferenceBetweenTheStatementAndTheBooksIsABreakThatPersists)
{
    const QByteArray ok = charge("amount=1000&currency=usd", "recon-ok");
    const QByteArray amount = charge("amount=2000&currency=usd", "recon-amount");
    const QByteArray currency = charge("amount=3000&currency=usd", "recon-currency");
    const QByteArray twice = charge("amount=4000&currency=usd", "recon-twice");
    const QByteArray silent = charge("amount=500&currency=usd", "recon-silent");
    const QByteArray held = charge("amount=700&currency=usd&capture=false", "recon-held");
    const HttpReply refund = post("/v1/refunds", "charge=" + ok + "&amount=300", "recon-refund");
    ASSERT_EQ(refund.status, 200) << refund.body.constData();
    const QByteArray refundId = QJsonDocument::fromJson(refund.body)
                                    .object()
                                    .value(QStringLiteral("id"))
                                    .toString()
                                    .toUtf8();
    m_day =
        scalar("SELECT (min(created_at) AT TIME ZONE 'UTC')::date FROM keel.ledger_transactions");

    const QString first =
        statement(QStringLiteral("day.csv"),
                  {item(ok, ",S1,payment,10.00,USD,0.30,%1T12:00:00Z"),
                   item(refundId, ",S2,refund,3.00,USD,-0.09,%1T12:00:00Z"),
                   item(amount, ",S3,payment,25.00,USD,0.75,%1T12:00:00Z"),
                   item(currency, ",S4,payment,30.00,EUR,0.90,%1T12:00:00Z"),
                   item(twice, ",S5,payment,40.00,USD,1.20,%1T12:00:00Z"),
                   item(twice, ",S6,payment,40.00,USD,1.20,%1T12:01:00Z"),
                   item(held, ",S7,payment,7.00,USD,0.21,%1T12:00:00Z"),
                   QStringLiteral("ch_neverSeen000001,S8,payment,9.99,USD,0.30,%1T12:00:00Z")});
    const ProcessResult imported = import(first);
    ASSERT_EQ(imported.exitCode, 0) << qPrintable(imported.err);
    EXPECT_TRUE(imported.out.startsWith(QLatin1String("statement="))) << qPrintable(imported.out);
    EXPECT_TRUE(imported.out.trimmed().endsWith(QLatin1String("lines=8")));

    const QJsonObject result = run();
    EXPECT_EQ(result.value(QStringLiteral("matched")).toInt(), 2);
    const QStringList expected{
        QStringLiteral("missing_at_keel:ch_neverSeen000001:new"),
        QStringLiteral("missing_at_channel:%1:pending").arg(QString::fromUtf8(silent)),
        QStringLiteral("amount_mismatch:%1:new").arg(QString::fromUtf8(amount)),
        QStringLiteral("status_mismatch:%1:new").arg(QString::fromUtf8(held)),
        QStringLiteral("currency_mismatch:%1:new").arg(QString::fromUtf8(currency)),
        QStringLiteral("duplicate:%1:new").arg(QString::fromUtf8(twice))};
    EXPECT_EQ(breaks(result), expected);
    const QJsonObject mismatch = result.value(QStringLiteral("breaks")).toArray().at(2).toObject();
    EXPECT_EQ(mismatch.value(QStringLiteral("channel_amount")).toInteger(), 2500);
    EXPECT_EQ(mismatch.value(QStringLiteral("keel_amount")).toInteger(), 2000);

    // The same inputs give the same result; a break keeps its id and persists.
    const QJsonObject again = run();
    EXPECT_EQ(again.value(QStringLiteral("result_sha256")),
              result.value(QStringLiteral("result_sha256")));
    EXPECT_EQ(again.value(QStringLiteral("breaks"))
                  .toArray()
                  .at(2)
                  .toObject()
                  .value(QStringLiteral("id")),
              mismatch.value(QStringLiteral("id")));
    EXPECT_TRUE(breaks(again).contains(
        QStringLiteral("amount_mismatch:%1:persisting").arg(QString::fromUtf8(amount))));
    EXPECT_TRUE(breaks(again).contains(
        QStringLiteral("missing_at_channel:%1:pending").arg(QString::fromUtf8(silent))))
        << "pending until the settlement lag has passed";

    // Later data resolves a break: the channel's next file has the capture.
    ASSERT_EQ(import(statement(QStringLiteral("late.csv"),
                               {item(silent, ",S9,payment,5.00,USD,0.15,%1T23:00:00Z")}))
                  .exitCode,
              0);
    const QJsonObject later = run();
    EXPECT_EQ(later.value(QStringLiteral("matched")).toInt(), 3);
    EXPECT_EQ(later.value(QStringLiteral("breaks")).toArray().size(), 5);
    EXPECT_EQ(scalar("SELECT status || ' ' || (resolved_at IS NOT NULL) FROM keel.recon_breaks "
                     "WHERE class = 'missing_at_channel'"),
              QStringLiteral("resolved true"));

    // Imports and runs are on the audit trail under the operator's login.
    EXPECT_EQ(scalar("SELECT count(*) FILTER (WHERE action = 'recon_import') || ' ' || "
                     "count(*) FILTER (WHERE action = 'recon_run') || ' ' || "
                     "bool_and(actor LIKE 't_keel_operator_%') FROM keel.audit_log "
                     "WHERE action LIKE 'recon_%'"),
              QStringLiteral("2 3 true"));
}

TEST_F(ReconciliationTest, ARunVerifiesUntilItsInputsChange)
{
    const QByteArray paid = charge("amount=1000&currency=usd", "recon-verify");
    m_day =
        scalar("SELECT (min(created_at) AT TIME ZONE 'UTC')::date FROM keel.ledger_transactions");
    ASSERT_EQ(import(statement(QStringLiteral("a.csv"),
                               {item(paid, ",S1,payment,10.00,USD,0.30,%1T12:00:00Z")}))
                  .exitCode,
              0);
    const QJsonObject result = run();
    EXPECT_EQ(result.value(QStringLiteral("matched")).toInt(), 1);
    EXPECT_TRUE(result.value(QStringLiteral("breaks")).toArray().isEmpty());
    const QString runId = QString::number(result.value(QStringLiteral("run")).toInteger());
    const ProcessResult verified =
        recon({QStringLiteral("verify"), QStringLiteral("--run"), runId});
    EXPECT_EQ(verified.exitCode, 0) << qPrintable(verified.err);
    EXPECT_TRUE(verified.out.contains(result.value(QStringLiteral("result_sha256")).toString()));

    ASSERT_EQ(import(statement(QStringLiteral("b.csv"),
                               {QStringLiteral("ch_extraLine000001,S2,payment,1.00,USD,0,"
                                               "%1T13:00:00Z")}))
                  .exitCode,
              0);
    const ProcessResult changed = recon({QStringLiteral("verify"), QStringLiteral("--run"), runId});
    EXPECT_EQ(changed.exitCode, 1);
    EXPECT_TRUE(changed.err.contains(QLatin1String("the same inputs now give")))
        << qPrintable(changed.err);
}

TEST_F(ReconciliationTest, ABrokenStatementIsRefusedWholeAndTheSameFileIsStoredOnce)
{
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
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_lines"), QStringLiteral("1"));

    const ProcessResult unknown =
        recon({QStringLiteral("import"), QStringLiteral("--channel"), QStringLiteral("paypal"),
               QStringLiteral("--format"), QStringLiteral("csv"), good});
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_TRUE(unknown.err.contains(QLatin1String("no channel \"paypal\"")));

    // An auditor reads reconciliation and writes none.
    const ProcessResult auditor =
        runKeel({QStringLiteral("recon"), QStringLiteral("import"), QStringLiteral("--channel"),
                 QStringLiteral("sim"), QStringLiteral("--format"), QStringLiteral("csv"), broken,
                 QStringLiteral("--db"), loginAs(QStringLiteral("keel_auditor")).conninfo()});
    EXPECT_EQ(auditor.exitCode, 2) << "refused on its content before any write";
    const QString other = statement(QStringLiteral("other.csv"),
                                    {QStringLiteral("ch_otherLine0000001,S1,payment,2.00,USD,0,"
                                                    "%1T12:00:00Z")});
    const ProcessResult denied =
        runKeel({QStringLiteral("recon"), QStringLiteral("import"), QStringLiteral("--channel"),
                 QStringLiteral("sim"), QStringLiteral("--format"), QStringLiteral("csv"), other,
                 QStringLiteral("--db"), loginAs(QStringLiteral("keel_auditor")).conninfo()});
    EXPECT_NE(denied.exitCode, 0);
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.recon_statements"), QStringLiteral("1"));
}

} // namespace
