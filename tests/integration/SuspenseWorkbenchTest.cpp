#include "DatabaseTest.h"

#include "core/db/Database.h"
#include "core/db/PgConnection.h"
#include "core/ops/ActionDesk.h"
#include "core/ops/CaseDesk.h"
#include "core/read/SuspenseQuery.h"

#include <QSqlQuery>

using namespace keel;
using keel::test::DatabaseTest;

// The suspense workbench's rules on real logins: who takes a case, who
// writes notes, what the queue and a case's trail show.
class SuspenseWorkbenchTest : public DatabaseTest {
protected:
    void SetUp() override
    {
        DatabaseTest::SetUp();
        migrate();
        ASSERT_FALSE(HasFatalFailure());
        auto session = PgConnection::open(settings());
        ASSERT_TRUE(session.ok());
        Status seeded = session->exec(
            "WITH s AS (INSERT INTO keel.sagas (kind, public_id, status, current_step) "
            "  VALUES ('order', 'saga_parked0000001', 'parked', 1) RETURNING id), "
            "e AS (INSERT INTO keel.saga_events (saga_id, step_index, event, detail) "
            "  SELECT id, 0, 'parked', '{\"rounds\": 3}' FROM s) "
            "INSERT INTO keel.suspense_cases (saga_id, amount, reason, opened_at) "
            "  SELECT id, 0, 'compensation failed 3 rounds', now() - interval '4 days' FROM s; "
            "INSERT INTO keel.suspense_cases (amount, reason) "
            "  VALUES (0, 'unmatched settlement line 2026-11-30');");
        ASSERT_TRUE(seeded.ok()) << qPrintable(seeded.error().message);
    }
    QSqlDatabase as(const QString &groupRole)
    {
        auto db = Database::connect(loginAs(groupRole), QStringLiteral("keel-test-") + groupRole);
        EXPECT_TRUE(db.ok()) << qPrintable(db.error().message);
        return db.ok() ? *db : QSqlDatabase();
    }
    QList<SuspenseCaseRow> queue(QSqlDatabase db, SuspenseCaseFilter filter = {})
    {
        auto rows = SuspenseQuery::queue(db, filter);
        EXPECT_TRUE(rows.ok()) << qPrintable(rows.error().message);
        return rows.ok() ? *rows : QList<SuspenseCaseRow>();
    }
    QString admin(const QByteArray &sql)
    {
        auto session = PgConnection::open(settings());
        auto value = session.ok() ? session->scalar(sql) : Result<QString>(session.error());
        return value.ok() ? *value : value.error().message;
    }
};

TEST_F(SuspenseWorkbenchTest, TheQueueIsOldestFirstAndMarksCasesPastTheirDeadline)
{
    const QList<SuspenseCaseRow> rows = queue(as(QStringLiteral("keel_operator")));
    ASSERT_EQ(rows.size(), 2);
    EXPECT_EQ(rows[0].sagaId, QStringLiteral("saga_parked0000001"));
    EXPECT_TRUE(rows[0].overdue) << "opened 4 days ago, deadline 3 days";
    EXPECT_FALSE(rows[1].overdue);
    SuspenseCaseFilter overdue;
    overdue.overdueOnly = true;
    EXPECT_EQ(queue(as(QStringLiteral("keel_operator")), overdue).size(), 1);
    // The deadline is policy, changed in one place.
    admin("UPDATE keel.ops_policy SET case_deadline = interval '5 days' RETURNING 1");
    EXPECT_FALSE(queue(as(QStringLiteral("keel_operator")))[0].overdue);
}

TEST_F(SuspenseWorkbenchTest, AnOperatorTakesACaseAndOthersCannotEvenDirectly)
{
    QSqlDatabase operatorDb = as(QStringLiteral("keel_operator"));
    const qint64 id = queue(operatorDb)[0].id;
    auto owner = CaseDesk(operatorDb).take(id);
    ASSERT_TRUE(owner.ok()) << qPrintable(owner.error().message);
    EXPECT_TRUE(owner->startsWith(QLatin1String("t_keel_operator"))) << qPrintable(*owner);
    const SuspenseCaseRow taken = queue(operatorDb)[0];
    EXPECT_EQ(taken.owner, *owner);
    EXPECT_EQ(taken.status, QStringLiteral("in_review"));
    SuspenseCaseFilter mine;
    mine.mineOnly = true;
    EXPECT_EQ(queue(operatorDb, mine).size(), 1);

    for (const QString &role : {QStringLiteral("keel_auditor"), QStringLiteral("keel_sre"),
                                QStringLiteral("keel_approver")}) {
        auto refused = CaseDesk(as(role)).take(id);
        ASSERT_FALSE(refused.ok()) << qPrintable(role);
        EXPECT_EQ(refused.error().code, QLatin1String(ErrorCode::InsufficientPrivilege))
            << qPrintable(role);
    }
    // Naming someone else the owner by hand is not possible any more.
    QSqlQuery direct(operatorDb);
    EXPECT_FALSE(direct.exec(QStringLiteral("UPDATE keel.suspense_cases SET owner = 'someone'")));
    EXPECT_EQ(admin("SELECT string_agg(action, ',' ORDER BY seq) FROM keel.audit_log"),
              QStringLiteral("case.take"));
}

TEST_F(SuspenseWorkbenchTest, NotesAndActionsJoinTheCasesTrailAndABlankNoteWritesNothing)
{
    QSqlDatabase operatorDb = as(QStringLiteral("keel_operator"));
    const SuspenseCaseRow row = queue(operatorDb)[0];
    ASSERT_TRUE(CaseDesk(operatorDb)
                    .addNote(row.id, QStringLiteral("bank says the refund bounced"),
                             QStringLiteral("ICBC-20261130-77"))
                    .ok());
    ASSERT_TRUE(CaseDesk(as(QStringLiteral("keel_approver")))
                    .addNote(row.id, QStringLiteral("agreed, retry after the 1st"))
                    .ok());
    Status blank = CaseDesk(operatorDb).addNote(row.id, QStringLiteral("   "));
    ASSERT_FALSE(blank.ok());
    EXPECT_EQ(blank.error().field, QStringLiteral("note"));
    Status byAuditor =
        CaseDesk(as(QStringLiteral("keel_auditor"))).addNote(row.id, QStringLiteral("x"));
    ASSERT_FALSE(byAuditor.ok());
    EXPECT_EQ(byAuditor.error().code, QLatin1String(ErrorCode::InsufficientPrivilege));
    auto proposal = ActionDesk(operatorDb)
                        .propose({QStringLiteral("saga.resume"),
                                  QStringLiteral("saga"),
                                  row.sagaId,
                                  {{row.sagaId, QString::number(row.sagaVersion)}},
                                  QStringLiteral("refund can go now"),
                                  ActionDesk::newIdempotencyKey()});
    ASSERT_TRUE(proposal.ok()) << qPrintable(proposal.error().message);

    auto trail = SuspenseQuery::trail(as(QStringLiteral("keel_auditor")), row, {});
    ASSERT_TRUE(trail.ok()) << qPrintable(trail.error().message);
    QStringList sources;
    QString text;
    for (const TimelineEntry &entry : *trail) {
        sources << entry.source;
        text += entry.summary + u'\n';
    }
    EXPECT_EQ(sources, (QStringList{QStringLiteral("saga"), QStringLiteral("note"),
                                    QStringLiteral("note"), QStringLiteral("action")}))
        << qPrintable(text);
    EXPECT_TRUE(text.contains(QLatin1String("[ICBC-20261130-77]"))) << qPrintable(text);
    EXPECT_TRUE(text.contains(QLatin1String("saga.resume proposed by t_keel_operator")))
        << qPrintable(text);
    EXPECT_EQ(admin("SELECT count(*) FROM keel.suspense_case_notes"), QStringLiteral("2"));
    EXPECT_EQ(admin("SELECT string_agg(action, ',' ORDER BY seq) FROM keel.audit_log"),
              QStringLiteral("case.note,case.note,propose"));
}
