#include "ReconciliationFixture.h"

#include "core/channel/SimulatedChannel.h"
#include "core/db/LibpqConnection.h"
#include "core/ops/BreakResolutions.h"
#include "core/ops/CaseResolutions.h"
#include "core/read/SuspenseQuery.h"

#include <QDate>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace keel;
using keel::test::ProcessResult;
using keel::test::runKeel;

namespace {

// Payments through Stripe, reconciled against its itemized payout report:
// disputes, their reversals and refunds that failed arrive days after the
// payment, and reopen the day keel moved its money on.
class StripeReconciliationTest : public keel::test::ReconciliationTest {
protected:
    void SetUp() override
    {
        ReconciliationTest::SetUp();
        ASSERT_FALSE(HasFatalFailure());
        m_remoteChannel = [config = m_channel](const ConnectionSettings &settings) {
            return std::make_shared<keel::test::LabelledChannel>(
                std::make_shared<SimulatedChannel>(settings, config), QStringLiteral("stripe-test"),
                QStringLiteral("stripe"));
        };
        startGateway();
    }

    // One balance transaction of the report, keel's references in its
    // payment's and refund's metadata.
    static QString row(const char *created, const char *gross, const char *fee, const char *net,
                       const char *category, const char *source, const QByteArray &payment,
                       const QByteArray &refundReference = {})
    {
        return QStringLiteral("po_1,%1,txn_%2_%3,%1,usd,%4,%5,%6,%3,%2,ch_stripe,%7,%8")
            .arg(QLatin1String(created), QLatin1String(source), QLatin1String(category),
                 QLatin1String(gross), QLatin1String(fee), QLatin1String(net),
                 QString::fromUtf8(payment), QString::fromUtf8(refundReference));
    }

    ProcessResult importReport(const QString &name, const QStringList &rows)
    {
        const QString path =
            file(name,
                 "automatic_payout_id,created_utc,balance_transaction_id,created,currency,gross,"
                 "fee,net,reporting_category,source_id,charge_id,"
                 "payment_metadata[keel_reference],refund_metadata[keel_reference]\n",
                 rows);
        return recon({QStringLiteral("import"), QStringLiteral("--channel"),
                      QStringLiteral("stripe"), QStringLiteral("--format"),
                      QStringLiteral("stripe"), path});
    }

    // Three disputes in one report: `lost`'s charge taken back; `orphan`'s
    // dispute and its reversal without the charge's row; `unnamed`'s charge
    // taken back and given again in a row without keel's metadata, filed
    // under the charge's Stripe id.
    ProcessResult importDisputes(const QByteArray &lost, const QByteArray &orphan,
                                 const QByteArray &unnamed)
    {
        return importReport(
            QStringLiteral("report.csv"),
            {row("%1 10:00:00", "20.00", "0.00", "20.00", "charge", "ch_tb_lost", lost),
             row("%2 09:00:00", "-20.00", "15.00", "-35.00", "dispute", "dp_tb_lost", lost),
             row("%2 09:30:00", "-30.00", "0.00", "-30.00", "dispute", "dp_tb_orphan", orphan),
             row("%2 10:30:00", "30.00", "0.00", "30.00", "dispute_reversal", "dp_tb_orphan",
                 orphan),
             row("%1 10:20:00", "15.00", "0.00", "15.00", "charge", "ch_tb_unnamed", unnamed),
             row("%2 09:40:00", "-15.00", "0.00", "-15.00", "dispute", "dp_tb_unnamed", unnamed),
             QStringLiteral("po_1,%2 11:00:00,txn_tb_unnamed,%2 11:00:00,usd,15.00,0.00,15.00,"
                            "dispute_reversal,dp_tb_unnamed,ch_tb_unnamed,,")});
    }

    QString dayAfter(int days) const
    {
        return QDate::fromString(m_day, Qt::ISODate).addDays(days).toString(Qt::ISODate);
    }

    // The open case on `paid`'s charge as the workbench lists it to an
    // operator.
    SuspenseCaseRow openCaseOf(const QByteArray &paid)
    {
        SuspenseCaseFilter filter;
        filter.chargeId = QString::fromUtf8(paid);
        const Result<QList<SuspenseCaseRow>> queue =
            SuspenseQuery::queue(as(QStringLiteral("keel_operator")), filter);
        EXPECT_TRUE(queue.ok()) << qPrintable(queue.ok() ? QString() : queue.error().message);
        return queue.ok() && queue->size() == 1 ? queue->first() : SuspenseCaseRow{};
    }

    // `lost`'s capture of 20.00, its books moved to a past day, is taken back
    // from its merchant after Stripe's dispute; 20 days later Stripe reverses
    // the dispute, and the payment's day runs again and parks 20.00 on the
    // charge. `payableBefore`: the merchant's payable before the take-back.
    void takeBackThenGiveAgain(const QByteArray &lost, qint64 &payableBefore)
    {
        ASSERT_EQ(backdateBooks(), QStringLiteral("1"));
        m_day = firstPostingDay();
        const ProcessResult report = importReport(
            QStringLiteral("report.csv"),
            {row("%1 10:00:00", "20.00", "0.00", "20.00", "charge", "ch_gb_lost", lost),
             row("%2 09:00:00", "-20.00", "0.00", "-20.00", "dispute", "dp_gb_lost", lost)});
        ASSERT_EQ(report.exitCode, 0) << qPrintable(report.err);
        run(QStringLiteral("stripe"));
        const QByteArray payable = merchantPayable();
        payableBefore = balance(payable).toLongLong();
        ASSERT_EQ(
            approveAndRun(BreakResolutions::takeBack(listed().value(QString::fromUtf8(lost)),
                                                     BreakResolutions::TakeBackBearer::Merchant))
                .applied,
            1);
        EXPECT_EQ(balance(payable).toLongLong() - payableBefore, 2000);
        const HttpReply disputed = post("/v1/refunds", "charge=" + lost, "refund-gb-disputed");
        EXPECT_EQ(disputed.status, 400) << disputed.body.constData();
        EXPECT_TRUE(disputed.body.contains("charge_disputed")) << disputed.body.constData();

        // Weeks later the dispute is reversed: its payment's day runs again and
        // parks what Stripe gave again on the charge.
        const QString later = dayAfter(20);
        const ProcessResult won = importReport(
            QStringLiteral("won.csv"),
            {row("%2 09:00:00", "20.00", "0.00", "20.00", "dispute_reversal", "dp_gb_lost", lost)
                 .replace(QLatin1String("%2"), later)});
        ASSERT_EQ(won.exitCode, 0) << qPrintable(won.err);
        EXPECT_EQ(run(QStringLiteral("stripe"), later).value(QStringLiteral("reopened")).toString(),
                  m_day);
        EXPECT_EQ(suspense(), QStringLiteral("2000"));
    }

    // The service login posts no give-back of its own: not against the open
    // case, nor against a case it writes as resolved by `approved`, an
    // approved give-back of that case.
    void expectNoGiveBackPostedByTheService(const QByteArray &lost, qint64 caseId, qint64 approved)
    {
        auto service = LibpqConnection::open(m_serviceLogin);
        ASSERT_TRUE(service.ok());
        const QByteArray charged = "(SELECT id FROM keel.charges WHERE public_id = '" + lost + "')";
        const Status forged = service->exec(
            "INSERT INTO keel.ledger_transactions (kind, charge_id, suspense_case_id, description) "
            "VALUES ('channel_giveback', " +
            charged + ", " + QByteArray::number(caseId) + ", 'no second person')");
        ASSERT_FALSE(forged.ok());
        EXPECT_EQ(forged.error().code, QLatin1String("42501"));
        EXPECT_TRUE(forged.error().message.contains(QLatin1String("approved case.give_back")))
            << qPrintable(forged.error().message);
        const Status forgedCase = service->exec(
            "WITH t AS (INSERT INTO keel.ledger_transactions (kind, charge_id, description) VALUES "
            "('suspense_in', " +
            charged +
            ", 'forged') RETURNING id), "
            "e AS (INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
            "SELECT t.id, a.id, 'USD', CASE a.kind WHEN 'suspense' THEN -2000 ELSE 2000 END "
            "FROM t, keel.ledger_accounts a WHERE a.currency = 'USD' AND (a.kind = 'suspense' OR "
            "a.code = "
            "'channel_clearing:USD')), "
            "k AS (INSERT INTO keel.suspense_cases (charge_id, currency, amount, reason, status, "
            "resolved_at, resolution, ledger_transaction_id) SELECT " +
            charged + ", 'USD', 2000, 'forged', 'resolved', now(), jsonb_build_object('kind', " +
            "'case.give_back', 'action', " + QByteArray::number(approved) +
            "), t.id FROM t RETURNING id) "
            "INSERT INTO keel.ledger_transactions (kind, charge_id, suspense_case_id, description) "
            "SELECT 'channel_giveback', " +
            charged + ", k.id, 'an approved action of another case' FROM k");
        // A closed case is keel's own functions' to write (migration 0048).
        ASSERT_FALSE(forgedCase.ok());
        EXPECT_EQ(forgedCase.error().code, QLatin1String("42501"))
            << qPrintable(forgedCase.error().message);
        EXPECT_TRUE(forgedCase.error().message.contains(QLatin1String("suspense_cases")))
            << qPrintable(forgedCase.error().message);
    }

    QString breakRows()
    {
        return scalar(
            "SELECT string_agg(class || ' ' || kind || ' ' || reference || ' ' || status "
            "|| ' ' || channel_amount || ' ' || keel_amount, '; ' ORDER BY keel_amount DESC) "
            "FROM keel.recon_breaks");
    }
};

TEST_F(StripeReconciliationTest, DisputesAndFailedRefundsDifferUntilTheMoneyComesBack)
{
    const QByteArray won = charge("amount=5000&currency=usd", "stripe-won");
    const QByteArray lost = charge("amount=2000&currency=usd", "stripe-lost");
    const QByteArray refundId = refund("charge=" + won + "&amount=1000", "stripe-ref");
    ASSERT_FALSE(refundId.isEmpty());
    EXPECT_EQ(scalar("SELECT string_agg(DISTINCT channel, ',') FROM keel.charges"),
              QStringLiteral("stripe"));
    m_day = firstPostingDay();
    const ProcessResult paid = importReport(
        QStringLiteral("paid.csv"),
        {row("%1 10:00:00", "50.00", "1.75", "48.25", "charge", "ch_won", won),
         row("%1 10:05:00", "20.00", "0.88", "19.12", "charge", "ch_lost", lost),
         row("%1 11:00:00", "-10.00", "0.00", "-10.00", "refund", "re_won", won, refundId),
         row("%1 12:00:00", "-0.40", "0.00", "-0.40", "fee", "", "")});
    ASSERT_EQ(paid.exitCode, 0) << qPrintable(paid.err);
    EXPECT_TRUE(paid.out.contains(QLatin1String(" lines=4 "))) << qPrintable(paid.out);
    QJsonObject first = run(QStringLiteral("stripe"));
    EXPECT_EQ(first.value(QStringLiteral("matched")).toInt(), 3);
    EXPECT_TRUE(first.value(QStringLiteral("breaks")).toArray().isEmpty())
        << QJsonDocument(first).toJson().constData();

    // The next day: both charges disputed, Stripe's dispute fee kept; the
    // refund failed, and its money came back.
    const ProcessResult disputed = importReport(
        QStringLiteral("disputed.csv"),
        {row("%2 09:00:00", "-50.00", "15.00", "-65.00", "dispute", "dp_won", won),
         row("%2 09:10:00", "-20.00", "15.00", "-35.00", "dispute", "dp_lost", lost),
         row("%2 12:00:00", "10.00", "0.00", "10.00", "refund_failure", "re_won", won, refundId)});
    ASSERT_EQ(disputed.exitCode, 0) << qPrintable(disputed.err);
    const QJsonObject second = run(QStringLiteral("stripe"), dayAfter(1));
    EXPECT_EQ(second.value(QStringLiteral("reopened")).toString(), m_day);
    EXPECT_TRUE(second.value(QStringLiteral("breaks")).toArray().isEmpty())
        << "the money is the payment day's";
    EXPECT_EQ(breakRows(), QStringLiteral("status_mismatch payment %1 pending 0 5000; "
                                          "status_mismatch payment %2 pending 0 2000; "
                                          "status_mismatch refund %3 pending 0 1000")
                               .arg(QString::fromUtf8(won), QString::fromUtf8(lost),
                                    QString::fromUtf8(refundId)));

    // Two days on: the merchant won one dispute, and Stripe gave its money
    // and its fee back.
    const QString third = dayAfter(2);
    const ProcessResult reinstated = importReport(
        QStringLiteral("reinstated.csv"),
        {row("%2 09:00:00", "50.00", "-15.00", "65.00", "dispute_reversal", "dp_won", won)
             .replace(QLatin1String("%2"), third)});
    ASSERT_EQ(reinstated.exitCode, 0) << qPrintable(reinstated.err);
    const QJsonObject fourth = run(QStringLiteral("stripe"), third);
    EXPECT_EQ(fourth.value(QStringLiteral("reopened")).toString(), m_day);
    EXPECT_EQ(breakRows(), QStringLiteral("status_mismatch payment %1 resolved 0 5000; "
                                          "status_mismatch payment %2 pending 0 2000; "
                                          "status_mismatch refund %3 pending 0 1000")
                               .arg(QString::fromUtf8(won), QString::fromUtf8(lost),
                                    QString::fromUtf8(refundId)))
        << "the won dispute leaves the charge as reported once";
    EXPECT_EQ(scalar("SELECT matched FROM keel.recon_runs ORDER BY id DESC LIMIT 1"),
              QStringLiteral("1"));
    EXPECT_EQ(balance("channel_fees:stripe:USD"), QStringLiteral("1803"))
        << "the charges' fees, Stripe's own and the lost dispute's; the won one's came back";
    expectBooksAgree();
}

// A bank debit that came back after Stripe counted it paid (charge_failure)
// takes the charge's money back under the charge's own id, as a lost dispute
// does: the payment differs, and a refund may no longer give that money
// again. A network cost is Stripe's to keep, booked with its fees.
TEST_F(StripeReconciliationTest, AFailedChargeIsTakenBackAndNetworkCostsAreFees)
{
    const QByteArray failed = charge("amount=3000&currency=usd", "stripe-failed");
    m_day = firstPostingDay();
    const ProcessResult paid = importReport(
        QStringLiteral("paid.csv"),
        {row("%1 10:00:00", "30.00", "0.00", "30.00", "charge", "ch_failed", failed),
         row("%1 10:01:00", "-0.07", "0.00", "-0.07", "network_cost", "ch_failed", "")});
    ASSERT_EQ(paid.exitCode, 0) << qPrintable(paid.err);
    EXPECT_EQ(run(QStringLiteral("stripe")).value(QStringLiteral("matched")).toInt(), 1);
    EXPECT_EQ(balance("channel_fees:stripe:USD"), QStringLiteral("7"));

    const ProcessResult returned = importReport(
        QStringLiteral("returned.csv"),
        {row("%2 08:00:00", "-30.00", "0.00", "-30.00", "charge_failure", "ch_failed", failed)});
    ASSERT_EQ(returned.exitCode, 0) << qPrintable(returned.err);
    const QJsonObject second = run(QStringLiteral("stripe"), dayAfter(1));
    EXPECT_EQ(second.value(QStringLiteral("reopened")).toString(), m_day);
    EXPECT_EQ(
        breakRows(),
        QStringLiteral("status_mismatch payment %1 pending 0 3000").arg(QString::fromUtf8(failed)));
    const HttpReply refunded = post("/v1/refunds", "charge=" + failed, "refund-failed-charge");
    EXPECT_EQ(refunded.status, 400) << refunded.body.constData();
    EXPECT_TRUE(refunded.body.contains("charge_disputed")) << refunded.body.constData();
    expectBooksAgree();
}

// Past the settlement lag, each difference opens a case: a dispute is money
// keel booked that the channel no longer holds, parked as owed (migration
// 0050); a failed refund is money the channel holds that keel let go, parked
// in suspense. A dispute reversed later closes its case, the money back in
// clearing.
TEST_F(StripeReconciliationTest, PastTheLagADisputeIsACaseToChaseThatItsReversalCloses)
{
    const QByteArray won = charge("amount=5000&currency=usd", "stripe-late-won");
    const QByteArray lost = charge("amount=2000&currency=usd", "stripe-late-lost");
    const QByteArray refundId = refund("charge=" + lost + "&amount=700", "stripe-lr");
    ASSERT_FALSE(refundId.isEmpty());
    // A refund whose own row the reports never showed, only its failure.
    const QByteArray unseenRefund = refund("charge=" + won + "&amount=300", "stripe-lr2");
    ASSERT_FALSE(unseenRefund.isEmpty());
    ASSERT_EQ(backdateBooks(), QStringLiteral("4"));
    m_day = firstPostingDay();
    const ProcessResult paid = importReport(
        QStringLiteral("paid.csv"),
        {row("%1 10:00:00", "50.00", "0.00", "50.00", "charge", "ch_won", won),
         row("%1 10:05:00", "20.00", "0.00", "20.00", "charge", "ch_lost", lost),
         row("%1 11:00:00", "-7.00", "0.00", "-7.00", "refund", "re_lost", lost, refundId),
         row("%2 09:00:00", "-50.00", "0.00", "-50.00", "dispute", "dp_won", won),
         row("%2 09:10:00", "-20.00", "0.00", "-20.00", "dispute", "dp_lost", lost),
         row("%2 12:00:00", "7.00", "0.00", "7.00", "refund_failure", "re_lost", lost, refundId),
         row("%2 12:30:00", "3.00", "0.00", "3.00", "refund_failure", "re_unseen", won,
             unseenRefund)});
    ASSERT_EQ(paid.exitCode, 0) << qPrintable(paid.err);
    const QJsonObject first = run(QStringLiteral("stripe"));
    EXPECT_EQ(first.value(QStringLiteral("cases_opened")).toInt(), 4);
    const QByteArray cases =
        "SELECT string_agg(coalesce(c.public_id, '-') || ':' || k.amount || ':' || k.status || "
        "':' || coalesce(k.resolution ->> 'kind', '-'), ' ' ORDER BY k.recon_break_id) "
        "FROM keel.suspense_cases k LEFT JOIN keel.charges c ON c.id = k.charge_id "
        "JOIN keel.recon_breaks b ON b.id = k.recon_break_id";
    const QString opened = scalar(cases);
    EXPECT_TRUE(opened.contains(QString::fromUtf8(won) + QStringLiteral(":5000:open:-")))
        << qPrintable(opened);
    EXPECT_TRUE(opened.contains(QString::fromUtf8(lost) + QStringLiteral(":2000:open:-")))
        << qPrintable(opened);
    EXPECT_TRUE(opened.contains(QStringLiteral("-:700:open:-")))
        << "the failed refund's money is the channel's: " << qPrintable(opened);
    EXPECT_TRUE(opened.contains(QStringLiteral("-:300:open:-")))
        << "the channel holds the unseen refund's money once, not twice: " << qPrintable(opened);
    EXPECT_EQ(suspense(), QStringLiteral("-6000")) << "10.00 held, 70.00 owed";

    const QString later = dayAfter(2);
    const ProcessResult reinstated = importReport(
        QStringLiteral("reinstated.csv"),
        {row("%3 09:00:00", "50.00", "0.00", "50.00", "dispute_reversal", "dp_won", won)
             .replace(QLatin1String("%3"), later)});
    ASSERT_EQ(reinstated.exitCode, 0) << qPrintable(reinstated.err);
    const QJsonObject third = run(QStringLiteral("stripe"), later);
    EXPECT_EQ(third.value(QStringLiteral("reopened")).toString(), m_day);
    const QString after = scalar(cases);
    EXPECT_TRUE(after.contains(QString::fromUtf8(won) + QStringLiteral(":5000:resolved:recon_run")))
        << "the money came back: nothing left to chase; " << qPrintable(after);
    EXPECT_TRUE(after.contains(QString::fromUtf8(lost) + QStringLiteral(":2000:open:-")))
        << qPrintable(after);
    EXPECT_EQ(suspense(), QStringLiteral("-1000"));
    expectBooksAgree();
}

// A dispute the merchant lost is taken back from the merchant through two
// people, after which the day matches; one approved before Stripe's report
// of the dispute reversed moves nothing. A dispute whose charge row never
// came holds nothing the reports show Stripe paid: what keel holds against
// it is not known to be Stripe's, and the database refuses; so it does for
// one whose reversal came filed under the charge's Stripe id.
TEST_F(StripeReconciliationTest, ALostDisputeIsTakenBackButNotOneWhoseChargeRowNeverCame)
{
    const QByteArray lost = charge("amount=2000&currency=usd", "stripe-tb-lost");
    const QByteArray orphan = charge("amount=3000&currency=usd", "stripe-tb-orphan");
    const QByteArray unnamed = charge("amount=1500&currency=usd", "stripe-tb-unnamed");
    ASSERT_EQ(backdateBooks(), QStringLiteral("3"));
    m_day = firstPostingDay();
    const ProcessResult report = importDisputes(lost, orphan, unnamed);
    ASSERT_EQ(report.exitCode, 0) << qPrintable(report.err);
    run(QStringLiteral("stripe"));
    const QMap<QString, ReconBreakRow> open = listed();
    const ReconBreakRow lostBreak = open.value(QString::fromUtf8(lost));
    const ReconBreakRow orphanBreak = open.value(QString::fromUtf8(orphan));
    ASSERT_EQ(lostBreak.breakClass, QStringLiteral("status_mismatch"));
    ASSERT_EQ(orphanBreak.breakClass, QStringLiteral("amount_mismatch"));
    EXPECT_EQ(orphanBreak.channelAmount.amount, 0);
    const QByteArray payable = merchantPayable();
    const qint64 payableBefore = balance(payable).toLongLong();

    // Proposed and approved while Stripe held nothing; its report of the
    // dispute reversed arrives before the day runs again: the lines no
    // longer say what the break did, and nothing is taken back.
    const qint64 early = proposeAndApprove(
        BreakResolutions::takeBack(lostBreak, BreakResolutions::TakeBackBearer::Merchant));
    ASSERT_NE(early, 0);
    const ProcessResult reversed = importReport(
        QStringLiteral("reversed.csv"),
        {row("%2 18:00:00", "20.00", "0.00", "20.00", "dispute_reversal", "dp_tb_lost", lost)});
    ASSERT_EQ(reversed.exitCode, 0) << qPrintable(reversed.err);
    const ActionExecution stale = runApproved(early);
    EXPECT_EQ(stale.applied, 0);
    EXPECT_EQ(onlyTarget(stale).outcome, QStringLiteral("not_allowed"));
    EXPECT_TRUE(onlyTarget(stale).message.contains(QLatin1String("is not known")))
        << qPrintable(onlyTarget(stale).message);
    EXPECT_EQ(balance(payable).toLongLong(), payableBefore);

    // Stripe takes the money back again: the day runs and matches, the
    // capture parked as owed past the lag; the person charges the owed case
    // to the merchant, once.
    const ProcessResult again = importReport(
        QStringLiteral("again.csv"),
        {row("%2 19:00:00", "-20.00", "0.00", "-20.00", "dispute", "dp_tb_lost2", lost)});
    ASSERT_EQ(again.exitCode, 0) << qPrintable(again.err);
    run(QStringLiteral("stripe"));
    EXPECT_EQ(statusOf(QString::fromUtf8(lost)), QStringLiteral("resolved"));
    const SuspenseCaseRow owed = openCaseOf(lost);
    ASSERT_TRUE(CaseResolutions::canChargeOwed(owed));
    EXPECT_EQ(owed.amount, 2000);
    EXPECT_FALSE(CaseResolutions::canGiveBack(owed));
    const qint64 charged =
        proposeAndApprove(CaseResolutions::chargeOwed(owed, CaseResolutions::OwedBy::Merchant));
    const qint64 twice =
        proposeAndApprove(CaseResolutions::chargeOwed(owed, CaseResolutions::OwedBy::Loss));
    ASSERT_TRUE(charged && twice);
    EXPECT_EQ(runApproved(charged).applied, 1);
    EXPECT_EQ(onlyTarget(runApproved(twice)).outcome, QStringLiteral("changed"));
    EXPECT_EQ(balance(payable).toLongLong() - payableBefore, 2000);
    // Past the lag the run parked the orphan's capture as owed, after which
    // it holds what Stripe's lines show and reconciles: there is no break
    // left to take back. The charge whose dispute came under Stripe's id
    // reconciled the same way; both owed cases wait in the workbench.
    const QString notKnown = refusalOf(
        BreakResolutions::takeBack(orphanBreak, BreakResolutions::TakeBackBearer::Merchant));
    EXPECT_TRUE(notKnown.contains(QLatin1String("resolved"))) << qPrintable(notKnown);
    const QString underStripesId = refusalOf(BreakResolutions::takeBack(
        open.value(QString::fromUtf8(unnamed)), BreakResolutions::TakeBackBearer::Merchant));
    EXPECT_TRUE(underStripesId.contains(QLatin1String("resolved"))) << qPrintable(underStripesId);
    EXPECT_EQ(openCaseOf(orphan).amount, 3000);
    EXPECT_TRUE(openCaseOf(orphan).owed);
    EXPECT_EQ(openCaseOf(unnamed).amount, 1500);

    const QStringList last = breaks(run(QStringLiteral("stripe")));
    EXPECT_FALSE(last.join(u' ').contains(QString::fromUtf8(orphan)))
        << qPrintable(last.join(u' '));
    EXPECT_FALSE(last.join(u' ').contains(QString::fromUtf8(lost))) << qPrintable(last.join(u' '));
    EXPECT_EQ(openCaseOf(orphan).amount, 3000) << "still the person's";
    expectBooksAgree();
}

// The merchant won on appeal a dispute that was taken back from them, and
// Stripe gave the money again: the run parks it on the charge, and a give-back
// through two people returns it to the merchant, after which the charge may
// be refunded again. It is given back to no one the take-back did not charge,
// only once, and only by an approved give-back.
TEST_F(StripeReconciliationTest, MoneyStripeGaveAgainGoesBackToTheMerchantAndRefundsResume)
{
    const QByteArray lost = charge("amount=2000&currency=usd", "stripe-gb-lost");
    const QByteArray payable = merchantPayable();
    qint64 payableBefore = 0;
    takeBackThenGiveAgain(lost, payableBefore);
    ASSERT_FALSE(HasFatalFailure());
    const SuspenseCaseRow parked = openCaseOf(lost);
    ASSERT_EQ(parked.amount, 2000);
    ASSERT_TRUE(CaseResolutions::canGiveBack(parked));

    // Nothing was taken from the loss account.
    const QString notTaken =
        refusalOf(CaseResolutions::giveBack(parked, CaseResolutions::GiveBackTo::Loss));
    EXPECT_TRUE(notTaken.contains(QLatin1String("that was not given back")))
        << qPrintable(notTaken);

    // Three give-backs proposed and approved while the lines show the money
    // given again.
    const qint64 first =
        proposeAndApprove(CaseResolutions::giveBack(parked, CaseResolutions::GiveBackTo::Merchant));
    const qint64 stale =
        proposeAndApprove(CaseResolutions::giveBack(parked, CaseResolutions::GiveBackTo::Merchant));
    const qint64 late =
        proposeAndApprove(CaseResolutions::giveBack(parked, CaseResolutions::GiveBackTo::Merchant));
    ASSERT_TRUE(first && stale && late);

    expectNoGiveBackPostedByTheService(lost, parked.id, first);
    ASSERT_FALSE(HasFatalFailure());

    // Stripe takes the money again before it is given back (a second
    // dispute): the lines no longer show it given, and nothing is, whether
    // proposed now or approved before; given again, it may be.
    ASSERT_EQ(
        importReport(QStringLiteral("again.csv"),
                     {row("%2 09:00:00", "-20.00", "0.00", "-20.00", "dispute", "dp_gb_again", lost)
                          .replace(QLatin1String("%2"), dayAfter(30))})
            .exitCode,
        0);
    const QString takenAgain =
        refusalOf(CaseResolutions::giveBack(parked, CaseResolutions::GiveBackTo::Merchant));
    EXPECT_TRUE(takenAgain.contains(QLatin1String("do not show it giving again")))
        << qPrintable(takenAgain);
    const ActionExecution refused = runApproved(stale);
    EXPECT_EQ(refused.applied, 0);
    EXPECT_EQ(onlyTarget(refused).outcome, QStringLiteral("not_allowed"));
    EXPECT_TRUE(onlyTarget(refused).message.contains(QLatin1String("do not show it giving again")))
        << qPrintable(onlyTarget(refused).message);
    EXPECT_EQ(balance(payable).toLongLong() - payableBefore, 2000) << "nothing moved";
    ASSERT_EQ(importReport(QStringLiteral("won-again.csv"),
                           {row("%2 09:00:00", "20.00", "0.00", "20.00", "dispute_reversal",
                                "dp_gb_again", lost)
                                .replace(QLatin1String("%2"), dayAfter(40))})
                  .exitCode,
              0);

    // The first moves the money; the last finds the case changed.
    EXPECT_EQ(runApproved(first).applied, 1);
    const ActionExecution again = runApproved(late);
    EXPECT_EQ(again.applied, 0);
    EXPECT_EQ(onlyTarget(again).outcome, QStringLiteral("changed"));
    EXPECT_EQ(balance(payable).toLongLong(), payableBefore) << "the merchant has it again";
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_transactions WHERE kind = "
                     "'channel_giveback'"),
              QStringLiteral("1"));
    expectBooksAgree();

    // The charge may be refunded in full again, once; and its day matches.
    const HttpReply refunded = post("/v1/refunds", "charge=" + lost, "refund-gb-after");
    ASSERT_EQ(refunded.status, 200) << refunded.body.constData();
    EXPECT_EQ(
        QJsonDocument::fromJson(refunded.body).object().value(QStringLiteral("amount")).toInt(),
        2000);
    EXPECT_FALSE(
        breaks(run(QStringLiteral("stripe"))).join(u' ').contains(QString::fromUtf8(lost)));
    expectBooksAgree();
}

// The audit finds a give-back no approved action posted, written around the
// trigger (by the owner, or with triggers off in a restore).
TEST_F(StripeReconciliationTest, TheAuditFindsAGiveBackNoApprovedActionPosted)
{
    const QByteArray paid = charge("amount=1000&currency=usd", "stripe-gb-forged");
    expectBooksAgree();
    (void)scalar(
        "DO $$ DECLARE t bigint; BEGIN SET LOCAL session_replication_role = replica; "
        "INSERT INTO keel.ledger_transactions (kind, charge_id, description) SELECT "
        "'channel_giveback', id, 'no second person' FROM keel.charges WHERE public_id = '" +
        paid +
        "' RETURNING id INTO t; "
        "INSERT INTO keel.ledger_entries (transaction_id, account_id, currency, amount) "
        "SELECT t, a.id, a.currency, "
        "CASE WHEN a.code LIKE 'merchant_payable:%' THEN -1000 ELSE 1000 END "
        "FROM keel.ledger_accounts a WHERE a.code = 'channel_clearing:USD' OR a.code "
        "LIKE 'merchant_payable:%:USD'; END $$");
    const ProcessResult audit = runKeel(
        {QStringLiteral("audit"), QStringLiteral("ledger"), QStringLiteral("--db"), m_service});
    EXPECT_NE(audit.exitCode, 0);
    EXPECT_TRUE(
        QString(audit.out + audit.err).contains(QLatin1String("is not what an approved give-back")))
        << qPrintable(audit.out) << qPrintable(audit.err);
}

} // namespace
