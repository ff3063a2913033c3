#include "MigratedDatabaseTest.h"

#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"
#include "core/ops/ActionDesk.h"
#include "core/ops/AuditChain.h"

#include <QSqlQuery>

using namespace keel;
using keel::test::MigratedDatabaseTest;

// Maker-checker on real logins: the database, not this code, decides who may
// do what. Three parked outbox messages are the targets.
class GuardedActionsTest : public MigratedDatabaseTest {
protected:
    void SetUp() override
    {
        MigratedDatabaseTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        for (int i = 1; i <= 3; ++i)
            m_parked << parkedMessage(QStringLiteral("ch_%1").arg(i));
    }

    QString admin(const QByteArray &sql)
    {
        auto session = LibpqConnection::open(settings());
        EXPECT_TRUE(session.ok());
        auto value = session.ok() ? session->scalar(sql) : Result<QString>(session.error());
        EXPECT_TRUE(value.ok()) << sql.constData() << ": "
                                << qPrintable(value.ok() ? QString() : value.error().message);
        return value.ok() ? *value : QString();
    }
    ActionTarget parkedMessage(const QString &aggregate)
    {
        const QString row =
            admin("INSERT INTO keel.outbox (aggregate_type, aggregate_id, event_type, payload, "
                  "attempts, last_error, parked_at) VALUES ('charge', '" +
                  aggregate.toLatin1() +
                  "', 'charge.succeeded', '{\"amount\": 1000}', 5, 'returned: no queue', now()) "
                  "RETURNING id::text || ' ' || xmin::text");
        return {row.section(u' ', 0, 0), row.section(u' ', 1)};
    }
    QSqlDatabase as(const QString &groupRole, const QString &extraRole = {})
    {
        const ConnectionSettings login = loginAs(groupRole);
        if (!extraRole.isEmpty()) {
            auto session = LibpqConnection::open(settings());
            EXPECT_TRUE(session.ok() && session
                                            ->exec("GRANT " + extraRole.toLatin1() + " TO " +
                                                   login.value(QStringLiteral("user")).toLatin1())
                                            .ok());
        }
        auto db =
            QtSqlConnections::connect(login, QStringLiteral("keel-test-") + groupRole + extraRole);
        EXPECT_TRUE(db.ok()) << qPrintable(db.error().message);
        return db.ok() ? *db : QSqlDatabase();
    }
    ProposalRequest resend(const QList<ActionTarget> &targets, const QString &key)
    {
        return {QStringLiteral("outbox.resend"),
                QStringLiteral("outbox"),
                QStringLiteral("%1 parked messages").arg(targets.size()),
                targets,
                QStringLiteral("broker binding fixed, INC-2211"),
                key,
                {}};
    }
    QString auditActions()
    {
        return admin("SELECT string_agg(action, ',' ORDER BY seq) FROM keel.audit_log "
                     "WHERE object_type = 'operator_action'");
    }

    QList<ActionTarget> m_parked;
};

TEST_F(GuardedActionsTest, ProposedApprovedExecutedOnceWithLineageAndEveryStepAudited)
{
    ActionDesk maker(as(QStringLiteral("keel_operator")));
    ActionDesk checker(as(QStringLiteral("keel_approver")));
    auto proposal = maker.propose(resend(m_parked.mid(0, 2), QStringLiteral("act_test_0001")));
    ASSERT_TRUE(proposal.ok()) << qPrintable(proposal.error().message);
    EXPECT_EQ(proposal->status, QStringLiteral("proposed"));
    EXPECT_EQ(proposal->targets, 2);
    EXPECT_EQ(proposal->targetsHash.size(), 64);
    EXPECT_GT(proposal->expiresAt, QDateTime::currentDateTimeUtc().addSecs(23 * 3600));

    // The same dialog submitted twice is one proposal.
    auto again = maker.propose(resend(m_parked.mid(0, 2), QStringLiteral("act_test_0001")));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->id, proposal->id);
    EXPECT_EQ(admin("SELECT count(*) FROM keel.operator_actions"), QStringLiteral("1"));

    // Not yet approved: nothing runs.
    auto early = maker.execute(proposal->id);
    ASSERT_FALSE(early.ok());
    EXPECT_EQ(early.error().code, QLatin1String(ActionErrorCode::Decided));

    ASSERT_TRUE(
        checker.approve(proposal->id, proposal->contentHash, QStringLiteral("checked the binding"))
            .ok());
    auto executed = maker.execute(proposal->id);
    ASSERT_TRUE(executed.ok()) << qPrintable(executed.error().message);
    EXPECT_FALSE(executed->replayed);
    EXPECT_EQ(executed->applied, 2);
    EXPECT_EQ(executed->skipped, 0);
    ASSERT_EQ(executed->targets.size(), 2);
    EXPECT_EQ(executed->targets[0].outcome, QStringLiteral("resent"));
    EXPECT_EQ(admin("SELECT string_agg(resend_of || ':' || resend_count, ',' ORDER BY id) FROM "
                    "keel.outbox WHERE resend_of IS NOT NULL"),
              m_parked[0].id + QStringLiteral(":1,") + m_parked[1].id + QStringLiteral(":1"));
    EXPECT_EQ(admin("SELECT count(*) FROM keel.outbox WHERE resent_at IS NOT NULL"),
              QStringLiteral("2"));

    // At most once: a second call answers with the first outcome.
    auto replay = checker.execute(proposal->id);
    ASSERT_TRUE(replay.ok()) << qPrintable(replay.error().message);
    EXPECT_TRUE(replay->replayed);
    EXPECT_EQ(replay->applied, 2);
    EXPECT_EQ(admin("SELECT count(*) FROM keel.outbox WHERE resend_of IS NOT NULL"),
              QStringLiteral("2"));

    auto record = maker.find(proposal->id);
    ASSERT_TRUE(record.ok());
    EXPECT_EQ(record->status, QStringLiteral("executed"));
    EXPECT_FALSE(record->decidedBy.isEmpty());
    EXPECT_EQ(auditActions(), QStringLiteral("propose,approve,execute"));
    auto session = LibpqConnection::open(settings());
    ASSERT_TRUE(session.ok());
    auto chain = AuditChain(*session).verify();
    ASSERT_TRUE(chain.ok()) << qPrintable(chain.error().message);
    EXPECT_TRUE(chain->intact());
}

TEST_F(GuardedActionsTest, TheProposerCannotApproveAndTheServerSaysWhy)
{
    ActionDesk both(as(QStringLiteral("keel_operator"), QStringLiteral("keel_approver")));
    auto proposal = both.propose(resend(m_parked, QStringLiteral("act_test_0002")));
    ASSERT_TRUE(proposal.ok()) << qPrintable(proposal.error().message);
    Status own = both.approve(proposal->id, proposal->contentHash);
    ASSERT_FALSE(own.ok());
    EXPECT_EQ(own.error().code, QLatin1String(ErrorCode::InsufficientPrivilege));
    EXPECT_TRUE(own.error().message.contains(QLatin1String("maker-checker")))
        << qPrintable(own.error().message);
    EXPECT_EQ(both.find(proposal->id)->status, QStringLiteral("proposed"));

    ActionDesk checker(as(QStringLiteral("keel_approver")));
    ASSERT_TRUE(checker.reject(proposal->id, QStringLiteral("wrong incident number")).ok());
    EXPECT_EQ(checker.find(proposal->id)->status, QStringLiteral("rejected"));
    Status late = checker.approve(proposal->id, proposal->contentHash);
    ASSERT_FALSE(late.ok());
    EXPECT_EQ(late.error().code, QLatin1String(ActionErrorCode::Decided));
    EXPECT_FALSE(both.execute(proposal->id).ok());
    EXPECT_EQ(admin("SELECT count(*) FROM keel.outbox WHERE resend_of IS NOT NULL"),
              QStringLiteral("0"));
}

TEST_F(GuardedActionsTest, AnExpiredProposalCannotBeApprovedOrExecuted)
{
    ActionDesk maker(as(QStringLiteral("keel_operator")));
    ActionDesk checker(as(QStringLiteral("keel_approver")));
    auto approved = maker.propose(resend(m_parked.mid(0, 1), QStringLiteral("act_test_0003")));
    auto open = maker.propose(resend(m_parked.mid(1, 1), QStringLiteral("act_test_0004")));
    ASSERT_TRUE(approved.ok() && open.ok());
    ASSERT_TRUE(checker.approve(approved->id, approved->contentHash).ok());
    admin("UPDATE keel.operator_actions SET expires_at = now() - interval '1 second' "
          "RETURNING 1");

    Status tooLate = checker.approve(open->id, open->contentHash);
    ASSERT_FALSE(tooLate.ok());
    EXPECT_EQ(tooLate.error().code, QLatin1String(ActionErrorCode::Expired));

    auto expired = maker.execute(approved->id);
    ASSERT_TRUE(expired.ok()) << qPrintable(expired.error().message);
    EXPECT_TRUE(expired->expired);
    EXPECT_EQ(expired->applied, 0);
    EXPECT_EQ(maker.find(approved->id)->status, QStringLiteral("expired"));
    EXPECT_EQ(admin("SELECT count(*) FROM keel.outbox WHERE resend_of IS NOT NULL"),
              QStringLiteral("0"));

    auto swept = maker.expireOverdue();
    ASSERT_TRUE(swept.ok()) << qPrintable(swept.error().message);
    EXPECT_EQ(*swept, 1);
    EXPECT_EQ(auditActions(), QStringLiteral("propose,propose,approve,expire,expire"));
}

TEST_F(GuardedActionsTest, AFrozenSelectionTouchesNothingTheOperatorDidNotSee)
{
    ActionDesk maker(as(QStringLiteral("keel_operator")));
    ActionDesk checker(as(QStringLiteral("keel_approver")));
    auto proposal = maker.propose(resend(m_parked.mid(0, 2), QStringLiteral("act_test_0005")));
    ASSERT_TRUE(proposal.ok());
    // After the selection: a new message is parked, and one selected message
    // is written again (its version moves on).
    const ActionTarget later = parkedMessage(QStringLiteral("ch_later"));
    admin("UPDATE keel.outbox SET last_error = 'nack' WHERE id = " + m_parked[1].id.toLatin1() +
          " RETURNING 1");
    ASSERT_TRUE(checker.approve(proposal->id, proposal->contentHash).ok());
    auto executed = maker.execute(proposal->id);
    ASSERT_TRUE(executed.ok()) << qPrintable(executed.error().message);
    EXPECT_EQ(executed->applied, 1);
    EXPECT_EQ(executed->skipped, 1);
    ASSERT_EQ(executed->targets.size(), 2);
    EXPECT_EQ(executed->targets[0].outcome, QStringLiteral("resent"));
    EXPECT_EQ(executed->targets[1].outcome, QStringLiteral("changed"));
    EXPECT_EQ(admin("SELECT string_agg(resend_of::text, ',') FROM keel.outbox "
                    "WHERE resend_of IS NOT NULL"),
              m_parked[0].id);
    EXPECT_EQ(admin("SELECT resent_at IS NULL FROM keel.outbox WHERE id = " + later.id.toLatin1()),
              QStringLiteral("t"));
}

TEST_F(GuardedActionsTest, RolesDecideWhoProposesWhatAndBadProposalsWriteNothing)
{
    admin("INSERT INTO keel.action_kinds VALUES ('ledger.adjust', 'suspense_case', true) "
          "RETURNING 1");
    ActionDesk sre(as(QStringLiteral("keel_sre")));
    auto resendBySre = sre.propose(resend(m_parked, QStringLiteral("act_test_0006")));
    EXPECT_TRUE(resendBySre.ok()) << qPrintable(resendBySre.error().message);
    auto money = sre.propose({QStringLiteral("ledger.adjust"),
                              QStringLiteral("suspense_case"),
                              QStringLiteral("case 7"),
                              {{QStringLiteral("7"), QStringLiteral("1")}},
                              QStringLiteral("balance the case"),
                              QStringLiteral("act_test_0007"),
                              {}});
    ASSERT_FALSE(money.ok());
    EXPECT_EQ(money.error().code, QLatin1String(ErrorCode::InsufficientPrivilege));
    EXPECT_TRUE(money.error().message.contains(QLatin1String("moves money")));
    if (resendBySre.ok()) {
        Status sreApproves = sre.approve(resendBySre->id, resendBySre->contentHash);
        ASSERT_FALSE(sreApproves.ok());
        EXPECT_EQ(sreApproves.error().code, QLatin1String(ErrorCode::InsufficientPrivilege));
    }

    ActionDesk auditor(as(QStringLiteral("keel_auditor")));
    auto byAuditor = auditor.propose(resend(m_parked, QStringLiteral("act_test_0008")));
    ASSERT_FALSE(byAuditor.ok());
    EXPECT_EQ(byAuditor.error().code, QLatin1String(ErrorCode::InsufficientPrivilege));

    ActionDesk maker(as(QStringLiteral("keel_operator")));
    auto unknown = maker.propose({QStringLiteral("outbox.delete"),
                                  QStringLiteral("outbox"),
                                  QStringLiteral("x"),
                                  m_parked,
                                  QStringLiteral("clean up"),
                                  QStringLiteral("act_test_0009"),
                                  {}});
    ASSERT_FALSE(unknown.ok());
    EXPECT_EQ(unknown.error().code, QLatin1String(ActionErrorCode::Invalid));
    auto twice = maker.propose(resend({m_parked[0], m_parked[0]}, QStringLiteral("act_test_0010")));
    ASSERT_FALSE(twice.ok());
    EXPECT_EQ(twice.error().code, QLatin1String(ActionErrorCode::Invalid));
    ProposalRequest terse = resend(m_parked, QStringLiteral("act_test_0011"));
    terse.reason = QStringLiteral(" ok ");
    auto noReason = maker.propose(terse);
    ASSERT_FALSE(noReason.ok());
    EXPECT_EQ(noReason.error().field, QStringLiteral("reason"));
    EXPECT_EQ(admin("SELECT count(*) FROM keel.operator_actions"), QStringLiteral("1"));
    EXPECT_EQ(auditActions(), QStringLiteral("propose"));
    // The rule added at the start is on the trail too (migration 0021).
    EXPECT_EQ(admin("SELECT object_id FROM keel.audit_log WHERE action = 'rules.insert'"),
              QStringLiteral("ledger.adjust"));
}
