#include "KeelProcess.h"
#include "MigratedDatabaseTest.h"

#include "core/db/LibpqConnection.h"
#include "core/ops/AuditChain.h"

#include <QFile>
#include <QTemporaryDir>

using namespace keel;
using keel::test::MigratedDatabaseTest;
using keel::test::ProcessResult;
using keel::test::runKeel;

// The chain as the trigger of migration 0001 writes it, with details that
// exercise jsonb's rendering (key order, spacing, non-ASCII text).
class AuditChainTest : public MigratedDatabaseTest {
protected:
    void SetUp() override
    {
        MigratedDatabaseTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        exec("INSERT INTO keel.audit_log (action, object_type, object_id, detail) VALUES "
             "('propose', 'operator_action', '1', '{\"reason\": \"退款失败 three times\", "
             "\"amount\": 1000}')");
        exec("INSERT INTO keel.audit_log (action, object_type, object_id, detail) VALUES "
             "('approve', 'operator_action', '1', '{\"b\": [1, 2], \"a\": {\"z\": null}}')");
        exec("INSERT INTO keel.audit_log (action, object_type, object_id) VALUES "
             "('execute', 'operator_action', '1')");
    }

    // What someone with the table's owner rights can do: switch the
    // immutability trigger off for their session.
    void tamper(const QByteArray &sql) { exec("SET session_replication_role = replica; " + sql); }

    Result<AuditChainReport> verify(const std::optional<AuditCheckpoint> &checkpoint = {})
    {
        auto session = LibpqConnection::open(settings());
        if (!session)
            return session.error();
        return AuditChain(*session).verify(checkpoint);
    }
    ProcessResult keelAudit(const QStringList &arguments)
    {
        return runKeel(QStringList{QStringLiteral("audit")} + arguments +
                       QStringList{QStringLiteral("--db"), settings().conninfo()});
    }
};

TEST_F(AuditChainTest, HashesComputedHereMatchTheTriggersAndAnEditedRowIsNamed)
{
    auto intact = verify();
    ASSERT_TRUE(intact.ok()) << qPrintable(intact.error().message);
    EXPECT_TRUE(intact->intact()) << qPrintable(intact->firstBreak->describe());
    EXPECT_EQ(intact->links, 3);
    EXPECT_EQ(intact->head.seq, 3);

    tamper("UPDATE keel.audit_log SET detail = '{\"b\": [1, 3], \"a\": {\"z\": null}}' "
           "WHERE seq = 2");
    auto edited = verify();
    ASSERT_TRUE(edited.ok());
    ASSERT_FALSE(edited->intact());
    EXPECT_EQ(edited->firstBreak->seq, 2);
    EXPECT_EQ(edited->firstBreak->kind, AuditBreakKind::Edited);
    EXPECT_EQ(edited->links, 1);

    const ProcessResult cli = keelAudit({QStringLiteral("verify")});
    EXPECT_EQ(cli.exitCode, 1);
    EXPECT_TRUE(cli.err.contains(QLatin1String("seq 2 does not match its hash")))
        << qPrintable(cli.err);
}

TEST_F(AuditChainTest, ADeletedLinkIsNamedAndSoIsAnInsertedOne)
{
    tamper("DELETE FROM keel.audit_log WHERE seq = 2");
    auto deleted = verify();
    ASSERT_TRUE(deleted.ok());
    ASSERT_FALSE(deleted->intact());
    EXPECT_EQ(deleted->firstBreak->seq, 2);
    EXPECT_EQ(deleted->firstBreak->kind, AuditBreakKind::Missing);

    // A forged row slipped into the gap with a well-formed hash of its own
    // still does not point where seq 3 points.
    tamper("INSERT INTO keel.audit_log (seq, action, object_type, object_id, prev_hash, hash) "
           "SELECT 2, 'approve', 'operator_action', '1', hash, hash FROM keel.audit_log "
           "WHERE seq = 1");
    auto forged = verify();
    ASSERT_TRUE(forged.ok());
    ASSERT_FALSE(forged->intact());
    EXPECT_EQ(forged->firstBreak->seq, 2);
    EXPECT_EQ(forged->firstBreak->kind, AuditBreakKind::Edited);
}

TEST_F(AuditChainTest, ACheckpointKeptOutsideCatchesAWholeChainRewrite)
{
    QTemporaryDir directory;
    const QString file = directory.filePath(QStringLiteral("head.txt"));
    const ProcessResult taken =
        keelAudit({QStringLiteral("checkpoint"), QStringLiteral("--out"), file});
    ASSERT_EQ(taken.exitCode, 0) << qPrintable(taken.err);
    EXPECT_TRUE(taken.out.startsWith(QLatin1String("keel-audit-checkpoint seq=3 sha256=")))
        << qPrintable(taken.out);
    EXPECT_EQ(keelAudit({QStringLiteral("verify"), QStringLiteral("--checkpoint"), file}).exitCode,
              0);

    // Links written after the checkpoint do not disturb it.
    exec("INSERT INTO keel.audit_log (action, object_type, object_id) VALUES "
         "('propose', 'operator_action', '2')");
    const ProcessResult later =
        keelAudit({QStringLiteral("verify"), QStringLiteral("--checkpoint"), file});
    EXPECT_EQ(later.exitCode, 0) << qPrintable(later.err);
    EXPECT_TRUE(later.out.contains(QLatin1String("4 links"))) << qPrintable(later.out);

    // Someone who can rewrite the table edits seq 1 and re-hashes every link
    // after it: the chain alone is consistent again, the checkpoint is not.
    tamper(R"sql(
        UPDATE keel.audit_log SET detail = '{"amount": 1}' WHERE seq = 1;
        DO $$
        DECLARE r record; previous bytea;
        BEGIN
            FOR r IN SELECT * FROM keel.audit_log ORDER BY seq LOOP
                UPDATE keel.audit_log SET prev_hash = previous,
                    hash = sha256(coalesce(previous, '\x'::bytea) || convert_to(concat_ws(E'\x1f',
                        r.seq::text, to_char(r.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'),
                        r.actor, r.action, r.object_type, r.object_id, r.detail::text), 'UTF8'))
                WHERE seq = r.seq RETURNING hash INTO previous;
            END LOOP;
        END $$;)sql");
    auto rewritten = verify();
    ASSERT_TRUE(rewritten.ok());
    EXPECT_TRUE(rewritten->intact()) << "a rewrite this thorough fools the chain on its own";
    const ProcessResult caught =
        keelAudit({QStringLiteral("verify"), QStringLiteral("--checkpoint"), file});
    EXPECT_EQ(caught.exitCode, 1);
    EXPECT_TRUE(caught.err.contains(QLatin1String("seq 3 holds another hash than the checkpoint")))
        << qPrintable(caught.err);

    tamper("DELETE FROM keel.audit_log");
    const ProcessResult emptied =
        keelAudit({QStringLiteral("verify"), QStringLiteral("--checkpoint"), file});
    EXPECT_EQ(emptied.exitCode, 1);
    EXPECT_TRUE(emptied.err.contains(QLatin1String("seq 3 is gone"))) << qPrintable(emptied.err);
}

TEST_F(AuditChainTest, AMalformedCheckpointIsRefusedBeforeAnythingIsRead)
{
    QTemporaryDir directory;
    const QString file = directory.filePath(QStringLiteral("head.txt"));
    QFile written(file);
    ASSERT_TRUE(written.open(QIODevice::WriteOnly));
    written.write("keel-audit-checkpoint seq=3 sha256=abc\n");
    written.close();
    const ProcessResult refused =
        keelAudit({QStringLiteral("verify"), QStringLiteral("--checkpoint"), file});
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_TRUE(refused.err.contains(file)) << qPrintable(refused.err);
    EXPECT_TRUE(refused.err.contains(QLatin1String("64 hex digits"))) << qPrintable(refused.err);

    auto parsed = AuditCheckpoint::parse(
        "  keel-audit-checkpoint seq=7 sha256=" + QByteArray(64, 'a') + "\r\n");
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed->seq, 7);
    EXPECT_EQ(parsed->toText().toLatin1(),
              "keel-audit-checkpoint seq=7 sha256=" + QByteArray(64, 'a'));
    EXPECT_FALSE(
        AuditCheckpoint::parse("keel-audit-checkpoint seq=0 sha256=" + QByteArray(64, 'a')).ok());
}

TEST_F(AuditChainTest, AnAuditorLoginVerifiesWithReadAccessAlone)
{
    auto session = LibpqConnection::open(loginAs(QStringLiteral("keel_auditor")));
    ASSERT_TRUE(session.ok()) << qPrintable(session.error().message);
    auto report = AuditChain(*session).verify();
    ASSERT_TRUE(report.ok()) << qPrintable(report.error().message);
    EXPECT_TRUE(report->intact());
    EXPECT_EQ(report->links, 3);
}
