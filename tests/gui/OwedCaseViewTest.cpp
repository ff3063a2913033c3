#include "MigratedDatabaseTest.h"
#include "MoneyCase.h"
#include "core/db/LibpqConnection.h"
#include "core/ops/CaseResolutions.h"
#include "ui/ActionReviewPane.h"
#include "ui/AdjustmentDialog.h"
#include "ui/ApprovalsView.h"
#include "ui/ProposeDialog.h"
#include "ui/QueryWorker.h"
#include "ui/SuspenseView.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>

using namespace keel;
using keel::test::MigratedDatabaseTest;

namespace {

// A case the channel owes (migration 0050) in the workbench, on an
// operator's login, and in the approver's review: read as owed, charged to
// whoever bears it with positive postings, never handed out.
class OwedCaseViewTest : public MigratedDatabaseTest {
protected:
    void SetUp() override
    {
        MigratedDatabaseTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        auto session = LibpqConnection::open(settings());
        ASSERT_TRUE(session.ok());
        ASSERT_TRUE(session->exec(keel::test::MoneyCaseSql).ok());
        const Status owed = session->exec(keel::test::OwedCaseSql);
        ASSERT_TRUE(owed.ok()) << qPrintable(owed.error().message);
        auto payable =
            session->scalar("SELECT code FROM keel.ledger_accounts WHERE kind = 'liability'");
        ASSERT_TRUE(payable.ok());
        m_payable = *payable;
        m_operator = std::make_unique<QueryWorker>(loginAs(QStringLiteral("keel_operator")));
        m_operator->start();
    }

    // The workbench with the owed case (the later of the two) selected.
    void selectOwed(SuspenseView &workbench)
    {
        workbench.setAccess(true, true, {});
        QSignalSpy listed(&workbench, &SuspenseView::listed);
        workbench.refresh();
        ASSERT_TRUE(listed.wait(10000));
        ASSERT_EQ(workbench.queue()->rowCount(), 2);
        workbench.selectCase(1);
    }

    QString m_payable;
    std::unique_ptr<QueryWorker> m_operator;
};

TEST_F(OwedCaseViewTest, TheWorkbenchReadsItAsOwedAndChargesItWithPositivePostings)
{
    SuspenseView workbench(m_operator.get());
    ASSERT_NO_FATAL_FAILURE(selectOwed(workbench));
    EXPECT_EQ(workbench.queue()->item(0, 3)->text(), QStringLiteral("176.32"));
    EXPECT_EQ(workbench.queue()->item(1, 3)->text(), QStringLiteral("owed 15.00"));
    EXPECT_TRUE(workbench.chargeOwedButton()->isEnabled());
    EXPECT_FALSE(workbench.giveBackButton()->isEnabled());

    AdjustmentDialog *adjustment = workbench.composeAdjustment();
    ASSERT_NE(adjustment, nullptr);
    QSignalSpy ready(adjustment, &AdjustmentDialog::ready);
    ASSERT_TRUE(ready.wait(10000));
    EXPECT_EQ(adjustment->postings()->item(0, 1)->text(), QStringLiteral("-15.00"));
    adjustment->addLine(m_payable, QStringLiteral("-15.00"));
    EXPECT_FALSE(adjustment->proposeButton()->isEnabled());
    EXPECT_TRUE(adjustment->sum()->text().contains(QLatin1String("positive amount")))
        << qPrintable(adjustment->sum()->text());
    qobject_cast<QLineEdit *>(adjustment->postings()->cellWidget(1, 1))
        ->setText(QStringLiteral("15.00"));
    EXPECT_TRUE(adjustment->proposeButton()->isEnabled()) << qPrintable(adjustment->sum()->text());
    delete adjustment;

    QSignalSpy proposed(&workbench, &SuspenseView::proposed);
    ProposeDialog *dialog = workbench.proposeChargeOwed(CaseResolutions::OwedBy::Merchant);
    ASSERT_NE(dialog, nullptr);
    dialog->reasonField()->setText(QStringLiteral("chargeback lost, merchant bears it"));
    QTest::keyClicks(dialog->confirmField(), QStringLiteral("1"));
    dialog->submit();
    ASSERT_TRUE(proposed.wait(10000)) << qPrintable(dialog->result()->text());
    const qint64 id = proposed.first().first().value<ActionRecord>().id;

    // The approver sees suspense credited back and the merchant charged.
    auto checkerWorker = std::make_unique<QueryWorker>(loginAs(QStringLiteral("keel_approver")));
    checkerWorker->start();
    ApprovalsView checker(checkerWorker.get());
    checker.setAccess(true, true);
    QSignalSpy refreshed(&checker, &ApprovalsView::refreshed);
    checker.queueChoice()->setCurrentIndex(1);
    if (refreshed.isEmpty())
        checker.refresh();
    ASSERT_TRUE(refreshed.wait(10000));
    QSignalSpy reviewed(&checker, &ApprovalsView::reviewed);
    ASSERT_TRUE(checker.select(id));
    ASSERT_TRUE(reviewed.wait(10000));
    QTableWidget *postings = checker.review()->postings();
    ASSERT_EQ(postings->rowCount(), 2);
    EXPECT_EQ(postings->item(0, 0)->text(), QStringLiteral("suspense:USD"));
    EXPECT_EQ(postings->item(0, 1)->text(), QStringLiteral("-15.00 USD"));
    EXPECT_EQ(postings->item(0, 2)->text(), QStringLiteral("-161.32 USD"))
        << "176.32 held, 15.00 owed";
    EXPECT_EQ(postings->item(0, 3)->text(), QStringLiteral("-176.32 USD"));
    EXPECT_EQ(postings->item(1, 0)->text(), m_payable);
    EXPECT_EQ(postings->item(1, 1)->text(), QStringLiteral("15.00 USD"));
}

} // namespace
