#include "MigratedDatabaseTest.h"
#include "MoneyCase.h"

#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"
#include "core/ledger/Ledger.h"
#include "core/ops/ActionDesk.h"
#include "core/ops/CaseDesk.h"
#include "core/ops/ExportLog.h"
#include "core/read/SuspenseQuery.h"

#include <QBuffer>
#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QSqlQuery>
#include <QTimeZone>

using namespace keel;
using keel::test::MigratedDatabaseTest;

// The suspense workbench's rules on real logins: who takes a case, who
// writes notes, what the queue and a case's trail show.
class SuspenseWorkbenchTest : public MigratedDatabaseTest {
protected:
    void SetUp() override
    {
        MigratedDatabaseTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        auto session = LibpqConnection::open(settings());
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
        auto db =
            QtSqlConnections::connect(loginAs(groupRole), QStringLiteral("keel-test-") + groupRole);
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
        auto session = LibpqConnection::open(settings());
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

TEST_F(SuspenseWorkbenchTest, TheQueuePagesByKeysetAndCasesOpenedTogetherAreNeitherLostNorRepeated)
{
    // Seven more cases opened in one statement: the same opened_at to the
    // microsecond, told apart by id.
    admin("INSERT INTO keel.suspense_cases (amount, reason) SELECT 0, 'batch ' || g "
          "FROM generate_series(1, 7) g RETURNING 1");
    QSqlDatabase operatorDb = as(QStringLiteral("keel_operator"));
    const QList<SuspenseCaseRow> whole = queue(operatorDb);
    ASSERT_EQ(whole.size(), 9);
    SuspenseCaseFilter page;
    page.limit = 2;
    QList<qint64> walked;
    for (int pages = 0; pages < 10; ++pages) {
        const QList<SuspenseCaseRow> rows = queue(operatorDb, page);
        for (const SuspenseCaseRow &row : rows)
            walked << row.id;
        if (rows.size() < page.limit)
            break;
        page.after = rows.constLast().cursor();
    }
    QList<qint64> expected;
    for (const SuspenseCaseRow &row : whole)
        expected << row.id;
    EXPECT_EQ(walked, expected);
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
                                  ActionDesk::newIdempotencyKey(),
                                  {}});
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

TEST_F(SuspenseWorkbenchTest, ABulkActionIsOnTheTrailOfEveryCaseItNamed)
{
    admin("WITH s AS (INSERT INTO keel.sagas (kind, public_id, status, current_step) "
          "  VALUES ('order', 'saga_parked0000002', 'parked', 1) RETURNING id) "
          "INSERT INTO keel.suspense_cases (saga_id, amount, reason) "
          "  SELECT id, 0, 'compensation failed 3 rounds' FROM s RETURNING 1");
    QSqlDatabase operatorDb = as(QStringLiteral("keel_operator"));
    QList<SuspenseCaseRow> parked;
    for (const SuspenseCaseRow &row : queue(operatorDb))
        if (!row.sagaId.isEmpty())
            parked << row;
    ASSERT_EQ(parked.size(), 2);
    auto bulk = ActionDesk(operatorDb)
                    .propose({QStringLiteral("saga.resume"),
                              QStringLiteral("saga"),
                              QStringLiteral("2 sagas"),
                              {{parked[0].sagaId, QString::number(parked[0].sagaVersion)},
                               {parked[1].sagaId, QString::number(parked[1].sagaVersion)}},
                              QStringLiteral("refunds work again, INC-31"),
                              ActionDesk::newIdempotencyKey(),
                              {}});
    ASSERT_TRUE(bulk.ok()) << qPrintable(bulk.error().message);
    for (const SuspenseCaseRow &row : parked) {
        auto trail = SuspenseQuery::trail(as(QStringLiteral("keel_auditor")), row, {});
        ASSERT_TRUE(trail.ok()) << qPrintable(trail.error().message);
        QString text;
        for (const TimelineEntry &entry : *trail)
            text += entry.summary + u'\n';
        EXPECT_TRUE(text.contains(QStringLiteral("#%1 saga.resume proposed").arg(bulk->id)))
            << qPrintable(row.sagaId) << ": " << qPrintable(text);
    }
}

TEST_F(SuspenseWorkbenchTest, ACaseIsFoundByAmountDateMerchantOrChargeAndEachExportIsAudited)
{
    admin("WITH m AS (INSERT INTO keel.merchants (name, api_key_hash) VALUES ('Tea House', "
          "sha256('k')) RETURNING id) "
          "INSERT INTO keel.suspense_cases (amount, reason, merchant_id, opened_at) "
          "SELECT 0, 'unmatched line 7', id, timestamptz '2026-11-02 10:00:00+00' FROM m "
          "RETURNING 1");
    QSqlDatabase auditorDb = as(QStringLiteral("keel_auditor"));
    SuspenseCaseFilter byMerchant;
    byMerchant.merchantId = admin("SELECT id FROM keel.merchants").toLongLong();
    ASSERT_EQ(queue(auditorDb, byMerchant).size(), 1);
    EXPECT_EQ(queue(auditorDb, byMerchant)[0].reason, QStringLiteral("unmatched line 7"));
    SuspenseCaseFilter byDay;
    byDay.openedFrom = QDateTime(QDate(2026, 11, 2), QTime(0, 0), QTimeZone::utc());
    byDay.openedTo = byDay.openedFrom.addDays(1);
    EXPECT_EQ(queue(auditorDb, byDay).size(), 1);
    SuspenseCaseFilter bySaga;
    bySaga.sagaId = QStringLiteral("saga_parked0000001");
    EXPECT_EQ(queue(auditorDb, bySaga).size(), 1);
    SuspenseCaseFilter byAmount;
    byAmount.amountMin = 1;
    EXPECT_EQ(queue(auditorDb, byAmount).size(), 0);
    byAmount.amountMin = 0;
    byAmount.amountMax = 0;
    EXPECT_EQ(queue(auditorDb, byAmount).size(), 3);
    SuspenseCaseFilter byCharge;
    byCharge.chargeId = QStringLiteral("ch_nosuchcharge01");
    EXPECT_EQ(queue(auditorDb, byCharge).size(), 0);

    QBuffer file;
    file.open(QIODevice::WriteOnly);
    auto written =
        SuspenseQuery::exportCsv(auditorDb, byMerchant, QStringLiteral("merchant 1"), file);
    ASSERT_TRUE(written.ok()) << qPrintable(written.error().message);
    EXPECT_EQ(written->rows, 1);
    const QList<QByteArray> lines = file.data().split('\n');
    EXPECT_EQ(lines.value(0), QByteArray("# keel suspense cases; filter: merchant 1\r"));
    EXPECT_TRUE(lines.value(2).contains(",2026-11-02T10:00:00.000Z,open,"))
        << lines.value(2).constData();
    EXPECT_EQ(written->sha256,
              QString::fromLatin1(
                  QCryptographicHash::hash(file.data(), QCryptographicHash::Sha256).toHex()));
    ASSERT_TRUE(ExportLog::record(auditorDb, QStringLiteral("suspense_cases"),
                                  QStringLiteral("merchant 1"), *written)
                    .ok());
    EXPECT_EQ(admin("SELECT actor LIKE 't_keel_auditor%' AND (detail->>'rows')::int = 1 AND "
                    "detail->>'sha256' = object_id AND detail->>'filter' = 'merchant 1' "
                    "FROM keel.audit_log WHERE action = 'export'"),
              QStringLiteral("t"));
    EXPECT_FALSE(
        ExportLog::record(auditorDb, QStringLiteral("merchant_secrets"), {}, *written).ok());
}

// A case that holds money, posted the way a parked saga posts it: the
// merchant's payable account debited, the suspense account credited.
class CaseResolutionTest : public SuspenseWorkbenchTest {
protected:
    void SetUp() override
    {
        SuspenseWorkbenchTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        auto session = LibpqConnection::open(settings());
        ASSERT_TRUE(session.ok());
        Status seeded = session->exec(test::MoneyCaseSql);
        ASSERT_TRUE(seeded.ok()) << qPrintable(seeded.error().message);
        ASSERT_EQ(ledgerViolations(), QString());
        for (const SuspenseCaseRow &row : queue(as(QStringLiteral("keel_operator"))))
            if (row.amount > 0)
                m_case = row;
        ASSERT_GT(m_case.id, 0);
        m_payable = admin("SELECT code FROM keel.ledger_accounts WHERE kind = 'liability'");
    }
    QString ledgerViolations()
    {
        auto session = LibpqConnection::open(settings());
        auto report = Ledger::audit(*session);
        return report ? report->violations.join(u'\n') : report.error().message;
    }
    ProposalRequest adjust(qint64 amount)
    {
        return {QStringLiteral("case.adjust"),
                QStringLiteral("suspense_case"),
                QString::number(m_case.id),
                {{QString::number(m_case.id), m_case.version}},
                QStringLiteral("merchant agreed to take it back, ticket 44"),
                ActionDesk::newIdempotencyKey(),
                QJsonObject{{QStringLiteral("postings"),
                             QJsonArray{QJsonObject{{QStringLiteral("account"), m_payable},
                                                    {QStringLiteral("amount"), amount}}}}}};
    }
    SuspenseCaseRow m_case;
    QString m_payable;
};

TEST_F(CaseResolutionTest, AnAdjustmentThatDoesNotBalanceCannotEvenBeProposed)
{
    ActionDesk maker(as(QStringLiteral("keel_operator")));
    auto unbalanced = maker.propose(adjust(-17000));
    ASSERT_FALSE(unbalanced.ok());
    EXPECT_EQ(unbalanced.error().code, QLatin1String(ActionErrorCode::Invalid));
    EXPECT_TRUE(unbalanced.error().message.contains(QLatin1String("does not balance")))
        << qPrintable(unbalanced.error().message);
    ProposalRequest intoSuspense = adjust(-17632);
    intoSuspense.payload = QJsonObject{
        {QStringLiteral("postings"),
         QJsonArray{QJsonObject{{QStringLiteral("account"), QStringLiteral("suspense:USD")},
                                {QStringLiteral("amount"), -17632}}}}};
    EXPECT_FALSE(maker.propose(intoSuspense).ok());
    EXPECT_EQ(admin("SELECT count(*) FROM keel.operator_actions"), QStringLiteral("0"));
    EXPECT_FALSE(ActionDesk(as(QStringLiteral("keel_sre"))).propose(adjust(-17632)).ok())
        << "moving money is not an SRE's";
}

TEST_F(CaseResolutionTest, ABalancedAdjustmentApprovedByASecondPersonClearsTheCaseAndTheBooksAgree)
{
    ActionDesk maker(as(QStringLiteral("keel_operator")));
    auto proposal = maker.propose(adjust(-17632));
    ASSERT_TRUE(proposal.ok()) << qPrintable(proposal.error().message);
    ASSERT_TRUE(ActionDesk(as(QStringLiteral("keel_approver")))
                    .approve(proposal->id, proposal->contentHash)
                    .ok());
    auto executed = maker.execute(proposal->id);
    ASSERT_TRUE(executed.ok()) << qPrintable(executed.error().message);
    EXPECT_EQ(executed->applied, 1);
    EXPECT_EQ(
        admin("SELECT status FROM keel.suspense_cases WHERE id = " + QByteArray::number(m_case.id)),
        QStringLiteral("resolved"));
    auto balance =
        SuspenseQuery::suspenseBalance(as(QStringLiteral("keel_operator")), QStringLiteral("USD"));
    ASSERT_TRUE(balance.ok());
    EXPECT_EQ(*balance, 0);
    EXPECT_EQ(ledgerViolations(), QString());
    EXPECT_EQ(admin("SELECT sum(amount) || ' ' || count(*) FROM keel.ledger_entries e JOIN "
                    "keel.ledger_transactions t ON t.id = e.transaction_id WHERE t.kind = "
                    "'adjustment'"),
              QStringLiteral("0 2"));
    EXPECT_TRUE(maker.execute(proposal->id)->replayed);
    EXPECT_EQ(admin("SELECT count(*) FROM keel.ledger_transactions WHERE kind = 'adjustment'"),
              QStringLiteral("1"));
}

TEST_F(CaseResolutionTest, AWriteOffOfACaseThatChangedSinceItWasSeenDoesNothing)
{
    ActionDesk maker(as(QStringLiteral("keel_operator")));
    auto writeOff = maker.propose({QStringLiteral("case.write_off"),
                                   QStringLiteral("suspense_case"),
                                   QString::number(m_case.id),
                                   {{QString::number(m_case.id), m_case.version}},
                                   QStringLiteral("customer unreachable for 90 days"),
                                   ActionDesk::newIdempotencyKey(),
                                   {}});
    ASSERT_TRUE(writeOff.ok()) << qPrintable(writeOff.error().message);
    // Someone takes the case meanwhile: its row, and so its version, moves on.
    ASSERT_TRUE(CaseDesk(as(QStringLiteral("keel_operator"))).take(m_case.id).ok());
    ASSERT_TRUE(ActionDesk(as(QStringLiteral("keel_approver")))
                    .approve(writeOff->id, writeOff->contentHash)
                    .ok());
    auto stale = maker.execute(writeOff->id);
    ASSERT_TRUE(stale.ok());
    EXPECT_EQ(stale->applied, 0);
    ASSERT_EQ(stale->targets.size(), 1);
    EXPECT_EQ(stale->targets[0].outcome, QStringLiteral("changed"));
    EXPECT_EQ(ledgerViolations(), QString());

    SuspenseCaseRow now;
    for (const SuspenseCaseRow &row : queue(as(QStringLiteral("keel_operator"))))
        if (row.id == m_case.id)
            now = row;
    ASSERT_EQ(now.id, m_case.id);
    EXPECT_NE(now.version, m_case.version);
    auto again = maker.propose({QStringLiteral("case.write_off"),
                                QStringLiteral("suspense_case"),
                                QString::number(now.id),
                                {{QString::number(now.id), now.version}},
                                QStringLiteral("customer unreachable for 90 days"),
                                ActionDesk::newIdempotencyKey(),
                                {}});
    ASSERT_TRUE(again.ok());
    ASSERT_TRUE(ActionDesk(as(QStringLiteral("keel_approver")))
                    .approve(again->id, again->contentHash)
                    .ok());
    auto written = maker.execute(again->id);
    ASSERT_TRUE(written.ok());
    EXPECT_EQ(written->applied, 1);
    EXPECT_EQ(
        admin("SELECT status FROM keel.suspense_cases WHERE id = " + QByteArray::number(m_case.id)),
        QStringLiteral("written_off"));
    EXPECT_EQ(ledgerViolations(), QString());
    EXPECT_EQ(admin("SELECT -sum(e.amount) FROM keel.ledger_entries e JOIN keel.ledger_accounts "
                    "a ON a.id = e.account_id WHERE a.code = 'suspense_write_off:USD'"),
              QStringLiteral("17632"));
}
