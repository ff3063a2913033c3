#include "ReconciliationFixture.h"

#include "core/db/LibpqConnection.h"
#include "core/ops/BreakResolutions.h"
#include "core/ops/CaseResolutions.h"
#include "core/read/ReconQuery.h"
#include "core/read/SuspenseQuery.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace keel;
using keel::test::ProcessResult;

namespace {

using keel::test::item;

// Money keel booked that the channel does not show, past the settlement lag
// (migration 0050): the run parks it as owed, debiting suspense, and the
// charge then reconciles. The service login imports and runs, people act
// through their own logins, and keel audit ledger runs as the service.
class ShortfallParkingTest : public keel::test::ReconciliationTest {
protected:
    // Each case of a break: "reference:amount:direction:status", in case order.
    QString cases()
    {
        return scalar("SELECT string_agg(coalesce(c.public_id, b.reference) || ':' || k.amount || "
                      "':' || k.direction || ':' || k.status, ' ' ORDER BY k.id) "
                      "FROM keel.suspense_cases k JOIN keel.recon_breaks b "
                      "ON b.id = k.recon_break_id LEFT JOIN keel.charges c ON c.id = k.charge_id");
    }

    QString postingsOf(const char *kind)
    {
        return scalar("SELECT count(*) FROM keel.ledger_transactions WHERE kind = '" +
                      QByteArray(kind) + "'");
    }

    // `keel recon verify` of the run `result` recorded, as the service login.
    void expectVerified(const QJsonObject &result)
    {
        const ProcessResult verified =
            recon({QStringLiteral("verify"), QStringLiteral("--run"),
                   QString::number(result.value(QStringLiteral("run")).toInteger())});
        EXPECT_EQ(verified.exitCode, 0) << qPrintable(verified.err) << qPrintable(verified.out);
    }

    // Past the lag, a statement of the day reporting `lines` (%1 the day).
    void pastTheLagReporting(const QString &postings, const QStringList &lines)
    {
        ASSERT_EQ(backdateBooks(), postings);
        m_day = firstPostingDay();
        ASSERT_EQ(import(statement(QStringLiteral("day.csv"), lines)).exitCode, 0);
    }

    // The day's only statement in force withdrawn by two people, and `lines`
    // imported in its place (a corrected statement).
    void correctTheStatement(const QStringList &lines)
    {
        ASSERT_NO_FATAL_FAILURE(correctTheStatementWith(
            statement(QStringLiteral("corrected-%1.csv").arg(m_corrections++), lines)));
    }
    void correctTheStatementWith(const QString &path)
    {
        auto statements = ReconQuery::statements(as(QStringLiteral("keel_operator")), 10);
        ASSERT_TRUE(statements.ok());
        QList<ReconStatementRow> inForce;
        for (const ReconStatementRow &row : *statements)
            if (!row.withdrawnAt.isValid())
                inForce << row;
        ASSERT_EQ(inForce.size(), 1);
        ASSERT_EQ(approveAndRun(BreakResolutions::withdrawal(inForce.first())).applied, 1);
        ASSERT_EQ(import(path).exitCode, 0);
    }
    int m_corrections = 0;

    // A statement in keel's CSV whose refund lines name their payment.
    QString naming(const QString &name, const QStringList &lines)
    {
        return file(name,
                    "reference,channel_reference,type,amount,currency,fee,occurred_at,"
                    "payment_reference\n",
                    lines);
    }

    // A day's statement lines: `paid` captured for 30.00, and its refund
    // `refundId` paid out for `channelRefund` (%1 the day).
    static QStringList capturedAndRefunded(const QByteArray &paid, const QString &refundId,
                                           const char *channelRefund)
    {
        return {item(paid, ",S1,payment,30.00,USD,0,%1T12:00:00Z"),
                QString(refundId + QStringLiteral(",R1,refund,") + QLatin1String(channelRefund) +
                        QStringLiteral(",USD,0,%1T13:00:00Z"))};
    }

    static constexpr char Withheld[] = "SELECT keel.charge_withheld(id) FROM keel.charges";

    // A charge of 30.00 refunded 10.00, which the channel paid out as 15.00:
    // owed 5.00, written off by two people; then a corrected statement shows
    // it paid out 10.00 after all, and the day runs. The refund's id.
    QString writtenOffThenGivenBack()
    {
        const QString refundId = writtenOffDebt("given-back", "15.00");
        run();
        EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("1500"));
        EXPECT_EQ(scalar(Withheld), QStringLiteral("500"));
        correctTheStatement(capturedAndRefunded(m_paid, refundId, "10.00"));
        const QJsonObject corrected = run();
        EXPECT_EQ(corrected.value(QStringLiteral("cases_opened")).toInt(), 1);
        expectVerified(corrected);
        return refundId;
    }
    QByteArray m_paid;

    // A charge of 30.00 (m_paid, under `key`) refunded 10.00, which the
    // channel paid out as `channelRefund`: past the lag, run, and its owed
    // case written off by two people. The refund's id.
    QString writtenOffDebt(const QByteArray &key, const char *channelRefund)
    {
        m_paid = charge("amount=3000&currency=usd", key);
        EXPECT_EQ(refundOf(m_paid, "1000", key + "-r").status, 200);
        const QString refundId = scalar("SELECT public_id FROM keel.refunds");
        pastTheLagReporting(QStringLiteral("2"),
                            capturedAndRefunded(m_paid, refundId, channelRefund));
        run();
        EXPECT_EQ(approveAndRun(writeOffOfCaseOf(refundId.toUtf8())).applied, 1);
        return refundId;
    }

    HttpReply refundOf(const QByteArray &paid, const QByteArray &amount, const QByteArray &key)
    {
        return post("/v1/refunds", "charge=" + paid + "&amount=" + amount, key);
    }
};

// A payment the channel never reported and one it reported for less: past
// the lag each parks its shortfall as owed, once, on its charge, and both
// charges reconcile from the next run on. Both runs verify on what they read.
TEST_F(ShortfallParkingTest, AShortfallIsParkedOnceAndItsChargeThenReconciles)
{
    startGateway();
    const QByteArray unpaid = charge("amount=1500&currency=usd", "short-unpaid");
    const QByteArray shortPaid = charge("amount=3000&currency=usd", "short-less");
    ASSERT_NO_FATAL_FAILURE(pastTheLagReporting(
        QStringLiteral("2"), {item(shortPaid, ",S1,payment,20.00,USD,0,%1T12:00:00Z")}));

    const QJsonObject first = run();
    EXPECT_EQ(first.value(QStringLiteral("cases_opened")).toInt(), 2);
    EXPECT_EQ(cases(), QStringLiteral("%1:1500:owed:open %2:1000:owed:open")
                           .arg(QString::fromUtf8(unpaid), QString::fromUtf8(shortPaid)));
    EXPECT_EQ(suspense(), QStringLiteral("-2500")) << "owed to keel: a debit of suspense";
    EXPECT_TRUE(scalar("SELECT reason FROM keel.suspense_cases WHERE amount = 1000")
                    .endsWith(QLatin1String("(the channel 20.00 USD, keel 30.00 USD)")))
        << "in the currency's major units, as the workbench shows it";
    m_gateway->maintain();
    const QByteArray metrics = m_client->request("GET", "/metrics").body;
    EXPECT_TRUE(
        metrics.contains("keel_suspense_open_amount{currency=\"USD\",direction=\"owed\"} 2500\n"))
        << "what the net balance would hide";
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("2000"))
        << "what the channel says it moved";
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_transactions t "
                     "JOIN keel.suspense_cases k ON k.ledger_transaction_id = t.id "
                     "WHERE t.kind = 'suspense_owed' AND t.charge_id = k.charge_id"),
              QStringLiteral("2"));
    expectBooksAgree();
    expectVerified(first);

    const QJsonObject second = run();
    EXPECT_TRUE(breaks(second).isEmpty()) << QJsonDocument(second).toJson().constData();
    EXPECT_EQ(second.value(QStringLiteral("matched")).toInt(), 2);
    EXPECT_EQ(second.value(QStringLiteral("cases_opened")).toInt(), 0);
    EXPECT_EQ(postingsOf("suspense_owed"), QStringLiteral("2")) << "nothing parked twice";
    EXPECT_EQ(suspense(), QStringLiteral("-2500"));
    EXPECT_EQ(cases(), QStringLiteral("%1:1500:owed:open %2:1000:owed:open")
                           .arg(QString::fromUtf8(unpaid), QString::fromUtf8(shortPaid)))
        << "the cases stay with a person";
    expectBooksAgree();
    expectVerified(second);
}

// The channel reports the payment after all, in a later file: the payment's
// day, run again, finds the channel holding what keel parked as owed, returns
// it to clearing and closes the case as the run's; the run after matches. The
// charge may then be refunded whole.
TEST_F(ShortfallParkingTest, TheChannelPayingLaterReturnsWhatWasOwedOnce)
{
    startGateway();
    const QByteArray paid = charge("amount=1000&currency=usd", "short-later-paid");
    const QByteArray late = charge("amount=1500&currency=usd", "short-later-late");
    ASSERT_NO_FATAL_FAILURE(pastTheLagReporting(
        QStringLiteral("2"), {item(paid, ",S1,payment,10.00,USD,0,%1T12:00:00Z")}));
    ASSERT_EQ(run().value(QStringLiteral("cases_opened")).toInt(), 1);
    ASSERT_EQ(suspense(), QStringLiteral("-1500"));

    ASSERT_EQ(import(statement(QStringLiteral("late.csv"),
                               {item(late, ",S2,payment,15.00,USD,0,%2T01:00:00Z")}))
                  .exitCode,
              0);
    const QJsonObject found = run();
    EXPECT_EQ(
        breaks(found),
        QStringList{QStringLiteral("amount_mismatch:%1:resolved").arg(QString::fromUtf8(late))})
        << "the charge held nothing when the line came; the owed case returned resolves it";
    EXPECT_EQ(found.value(QStringLiteral("cases_opened")).toInt(), 0) << "the owed case covers it";
    EXPECT_EQ(cases(), QStringLiteral("%1:1500:owed:resolved").arg(QString::fromUtf8(late)));
    EXPECT_EQ(scalar("SELECT resolution ->> 'kind' FROM keel.suspense_cases"),
              QStringLiteral("recon_run"));
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("2500"));
    EXPECT_EQ(scalar("SELECT detail ->> 'returned' FROM keel.audit_log "
                     "WHERE action = 'case.close_by_run'"),
              QStringLiteral("-1500"));
    expectBooksAgree();
    expectVerified(found);

    const QJsonObject after = run();
    EXPECT_TRUE(breaks(after).isEmpty()) << QJsonDocument(after).toJson().constData();
    EXPECT_EQ(postingsOf("suspense_return"), QStringLiteral("1")) << "returned once";
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.suspense_cases"), QStringLiteral("1"));
    EXPECT_EQ(suspense(), QStringLiteral("0"));

    const HttpReply whole = refundOf(late, "1500", "short-later-refund");
    EXPECT_EQ(whole.status, 200) << whole.body.constData();
    expectBooksAgree();
}

// While an owed case holds a charge's shortfall, a refund asks no more than
// what the channel paid: the gateway answers charge_disputed, and the
// database refuses the service login whatever it writes.
TEST_F(ShortfallParkingTest, AnOwedChargeIsRefundedNoFurtherThanTheChannelPaid)
{
    startGateway();
    const QByteArray shortPaid = charge("amount=3000&currency=usd", "short-refund");
    ASSERT_NO_FATAL_FAILURE(pastTheLagReporting(
        QStringLiteral("1"), {item(shortPaid, ",S1,payment,20.00,USD,0,%1T12:00:00Z")}));
    ASSERT_EQ(run().value(QStringLiteral("cases_opened")).toInt(), 1);
    EXPECT_TRUE(breaks(run()).isEmpty()) << "the charge reconciles";

    const HttpReply tooMuch = refundOf(shortPaid, "2001", "short-refund-2001");
    EXPECT_EQ(tooMuch.status, 400) << tooMuch.body.constData();
    EXPECT_TRUE(tooMuch.body.contains("charge_disputed")) << tooMuch.body.constData();
    EXPECT_TRUE(tooMuch.body.contains("2000 of it can still be refunded"))
        << tooMuch.body.constData();
    const HttpReply paidPart = refundOf(shortPaid, "2000", "short-refund-2000");
    EXPECT_EQ(paidPart.status, 200) << paidPart.body.constData();
    EXPECT_EQ(refundOf(shortPaid, "1", "short-refund-1").status, 400);

    auto service = LibpqConnection::open(m_serviceLogin);
    ASSERT_TRUE(service.ok());
    const Status forged = service->exec(
        "INSERT INTO keel.refunds (public_id, charge_id, out_refund_no, amount, currency, "
        "channel, request_hash) SELECT 're_forged', id, 'forged', 1, currency, channel, "
        "'\\x00' FROM keel.charges");
    ASSERT_FALSE(forged.ok());
    EXPECT_EQ(forged.error().code, QLatin1String("KL426"));
    expectBooksAgree();
}

// The channel's corrected statement shows it paid even less: the day's run
// finds the break again, returns what an earlier run parked as owed and
// parks the whole shortfall, so a refund stays within what the channel paid.
TEST_F(ShortfallParkingTest, AShortfallFoundAgainLargerIsParkedWhole)
{
    startGateway();
    const QByteArray shortPaid = charge("amount=10000&currency=usd", "short-larger");
    ASSERT_NO_FATAL_FAILURE(pastTheLagReporting(
        QStringLiteral("1"), {item(shortPaid, ",S1,payment,60.00,USD,0,%1T12:00:00Z")}));
    ASSERT_EQ(run().value(QStringLiteral("cases_opened")).toInt(), 1);
    ASSERT_EQ(suspense(), QStringLiteral("-4000"));

    ASSERT_NO_FATAL_FAILURE(
        correctTheStatement({item(shortPaid, ",S1,payment,30.00,USD,0,%1T12:00:00Z")}));
    const QJsonObject again = run();
    EXPECT_EQ(
        breaks(again),
        QStringList{
            QStringLiteral("amount_mismatch:%1:persisting").arg(QString::fromUtf8(shortPaid))});
    EXPECT_EQ(cases(), QStringLiteral("%1:4000:owed:resolved %1:7000:owed:open")
                           .arg(QString::fromUtf8(shortPaid)));
    EXPECT_EQ(suspense(), QStringLiteral("-7000"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("3000"));
    expectBooksAgree();
    expectVerified(again);
    EXPECT_TRUE(breaks(run()).isEmpty());
    EXPECT_EQ(refundOf(shortPaid, "3001", "short-larger-3001").status, 400);
    EXPECT_EQ(refundOf(shortPaid, "3000", "short-larger-3000").status, 200);
    expectBooksAgree();
}

// The merchant was charged what the channel did not pay; the channel then
// pays after all. The run parks the money it now holds on the charge, and
// once a person hands that to the merchant, the charge may be refunded in
// full again: what was owed is paid.
TEST_F(ShortfallParkingTest, MoneyPaidAfterTheMerchantWasChargedFreesTheRefundOnceSettled)
{
    startGateway();
    const QByteArray paid = charge("amount=100&currency=usd", "short-after-paid");
    const QByteArray late = charge("amount=1500&currency=usd", "short-after-late");
    ASSERT_NO_FATAL_FAILURE(pastTheLagReporting(
        QStringLiteral("2"), {item(paid, ",S1,payment,1.00,USD,0,%1T12:00:00Z")}));
    ASSERT_EQ(run().value(QStringLiteral("cases_opened")).toInt(), 1);
    ASSERT_EQ(approveAndRun(
                  CaseResolutions::chargeOwed(openCaseOf(late), CaseResolutions::OwedBy::Merchant))
                  .applied,
              1);
    EXPECT_EQ(refundOf(late, "1", "short-after-none").status, 400);

    ASSERT_EQ(import(statement(QStringLiteral("late.csv"),
                               {item(late, ",S2,payment,15.00,USD,0,%2T01:00:00Z")}))
                  .exitCode,
              0);
    ASSERT_EQ(run().value(QStringLiteral("cases_opened")).toInt(), 1);
    const SuspenseCaseRow held = openCaseOf(late);
    EXPECT_FALSE(held.owed);
    EXPECT_EQ(held.amount, 1500);
    ProposalRequest toMerchant =
        CaseResolutions::chargeOwed(held, CaseResolutions::OwedBy::Merchant);
    toMerchant.payload[QStringLiteral("postings")] =
        QJsonArray{QJsonObject{{QStringLiteral("account"), QString::fromUtf8(merchantPayable())},
                               {QStringLiteral("amount"), -1500}}};
    ASSERT_EQ(approveAndRun(toMerchant).applied, 1);
    const HttpReply whole = refundOf(late, "1500", "short-after-whole");
    EXPECT_EQ(whole.status, 200) << whole.body.constData();
    expectBooksAgree();
}

// A person decides who bears what the channel will not pay: charged to the
// merchant, or written off as a loss, each once, through two people. An owed
// case hands nothing out and puts nothing back on clearing; only a run does.
TEST_F(ShortfallParkingTest, AnOwedCaseIsChargedToTheMerchantOrWrittenOffOnce)
{
    startGateway();
    const QByteArray charged = charge("amount=1500&currency=usd", "short-charged");
    const QByteArray lost = charge("amount=500&currency=usd", "short-lost");
    const QByteArray paid = charge("amount=100&currency=usd", "short-paid");
    ASSERT_NO_FATAL_FAILURE(pastTheLagReporting(
        QStringLiteral("3"), {item(paid, ",S1,payment,1.00,USD,0,%1T12:00:00Z")}));
    ASSERT_EQ(run().value(QStringLiteral("cases_opened")).toInt(), 2);
    ASSERT_EQ(suspense(), QStringLiteral("-2000"));
    const QByteArray payable = merchantPayable();
    const qint64 payableBefore = balance(payable).toLongLong();

    const SuspenseCaseRow owed = openCaseOf(charged);
    ASSERT_TRUE(owed.owed);
    EXPECT_FALSE(CaseResolutions::canGiveBack(owed));
    const QString givenBack =
        refusalOf(CaseResolutions::giveBack(owed, CaseResolutions::GiveBackTo::Merchant));
    EXPECT_TRUE(givenBack.contains(QLatin1String("does not hold money"))) << qPrintable(givenBack);
    ProposalRequest handedOut = CaseResolutions::chargeOwed(owed, CaseResolutions::OwedBy::Loss);
    handedOut.payload[QStringLiteral("postings")] =
        QJsonArray{QJsonObject{{QStringLiteral("account"), QString::fromUtf8(payable)},
                               {QStringLiteral("amount"), -1500}}};
    const QString handOut = refusalOf(handedOut);
    EXPECT_TRUE(handOut.contains(QLatin1String("owed by its channel"))) << qPrintable(handOut);
    ProposalRequest toClearing = handedOut;
    toClearing.payload[QStringLiteral("postings")] =
        QJsonArray{QJsonObject{{QStringLiteral("account"), QStringLiteral("channel_clearing:USD")},
                               {QStringLiteral("amount"), 1500}}};
    const QString cleared = refusalOf(toClearing);
    EXPECT_TRUE(cleared.contains(QLatin1String("outside case"))) << qPrintable(cleared);

    const qint64 toMerchant =
        proposeAndApprove(CaseResolutions::chargeOwed(owed, CaseResolutions::OwedBy::Merchant));
    const qint64 asLoss =
        proposeAndApprove(CaseResolutions::chargeOwed(owed, CaseResolutions::OwedBy::Loss));
    ASSERT_TRUE(toMerchant && asLoss);
    EXPECT_EQ(runApproved(toMerchant).applied, 1);
    EXPECT_EQ(onlyTarget(runApproved(asLoss)).outcome, QStringLiteral("changed"));
    EXPECT_EQ(balance(payable).toLongLong() - payableBefore, 1500) << "the merchant bears it";
    EXPECT_EQ(balance("operational_loss:USD"), QStringLiteral("0"));

    const ProposalRequest writeOff = writeOffOfCaseOf(lost);
    const qint64 first = proposeAndApprove(writeOff);
    const qint64 second = proposeAndApprove(writeOff);
    EXPECT_EQ(runApproved(first).applied, 1);
    EXPECT_EQ(runApproved(second).applied, 0);
    EXPECT_EQ(balance("suspense_write_off:USD"), QStringLiteral("500")) << "a loss, once";
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("100"));

    // Neither is refunded past what the channel paid, which was nothing.
    const HttpReply refused = refundOf(charged, "1", "short-charged-refund");
    EXPECT_EQ(refused.status, 400) << refused.body.constData();
    EXPECT_TRUE(refused.body.contains("charge_disputed")) << refused.body.constData();
    EXPECT_TRUE(breaks(run()).isEmpty());
    EXPECT_EQ(postingsOf("suspense_owed"), QStringLiteral("2"));
    expectBooksAgree();
}

// A refund the channel paid out for more than keel let go is owed on no
// charge. Written off, it is not parked again when the break is found again.
TEST_F(ShortfallParkingTest, ARefundTheChannelPaidBeyondKeelIsOwedOnNoCharge)
{
    startGateway();
    const QByteArray paid = charge("amount=3000&currency=usd", "short-refund-beyond");
    const HttpReply refunded = refundOf(paid, "1000", "short-refund-beyond-r");
    ASSERT_EQ(refunded.status, 200) << refunded.body.constData();
    const QString refundId = scalar("SELECT public_id FROM keel.refunds");
    ASSERT_NO_FATAL_FAILURE(
        pastTheLagReporting(QStringLiteral("2"), capturedAndRefunded(paid, refundId, "15.00")));
    const QJsonObject first = run();
    EXPECT_EQ(breaks(first), QStringList{QStringLiteral("amount_mismatch:%1:new").arg(refundId)});
    EXPECT_EQ(cases(), QStringLiteral("%1:500:owed:open").arg(refundId));
    EXPECT_EQ(scalar("SELECT charge_id IS NULL FROM keel.suspense_cases"), QStringLiteral("t"));
    EXPECT_EQ(suspense(), QStringLiteral("-500"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("1500"))
        << "what the channel says it holds: 30.00 less 15.00";
    expectBooksAgree();
    expectVerified(first);

    EXPECT_EQ(approveAndRun(writeOffOfCaseOf(refundId.toUtf8())).applied, 1);
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    EXPECT_EQ(balance("suspense_write_off:USD"), QStringLiteral("500"));
    run();
    run();
    EXPECT_EQ(postingsOf("suspense_owed"), QStringLiteral("1")) << "parked once";
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("1500"));
    expectBooksAgree();

    // Written off, the money is still not the channel's to pay out again:
    // the charge is refunded no further than the 15.00 it holds.
    EXPECT_EQ(refundOf(paid, "1501", "short-refund-beyond-more").status, 400);
    const HttpReply rest = refundOf(paid, "1500", "short-refund-beyond-rest");
    EXPECT_EQ(rest.status, 200) << rest.body.constData();
}

// A corrected statement shows the channel paid a refund out further while
// the owed case of its first difference is open. The run parks the rest
// only once a person settles that case, and meanwhile the charge is
// refunded no further than the channel still holds (migration 0051).
TEST_F(ShortfallParkingTest, ARefundPaidOutFurtherLimitsRefundsByAllOfIt)
{
    startGateway();
    const QByteArray paid = charge("amount=3000&currency=usd", "short-refund-further");
    ASSERT_EQ(refundOf(paid, "1000", "short-refund-further-r").status, 200);
    const QString refundId = scalar("SELECT public_id FROM keel.refunds");
    ASSERT_NO_FATAL_FAILURE(
        pastTheLagReporting(QStringLiteral("2"), capturedAndRefunded(paid, refundId, "15.00")));
    run();
    ASSERT_EQ(cases(), QStringLiteral("%1:500:owed:open").arg(refundId));

    ASSERT_NO_FATAL_FAILURE(correctTheStatement(capturedAndRefunded(paid, refundId, "20.00")));
    run();
    EXPECT_EQ(cases(), QStringLiteral("%1:500:owed:open").arg(refundId));
    // The channel holds 30.00 less 20.00.
    EXPECT_EQ(refundOf(paid, "1001", "short-refund-further-over").status, 400);

    EXPECT_EQ(approveAndRun(writeOffOfCaseOf(refundId.toUtf8())).applied, 1);
    run();
    EXPECT_EQ(cases(), QStringLiteral("%1:500:owed:written_off %1:500:owed:open").arg(refundId));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("1000"));
    EXPECT_EQ(refundOf(paid, "1001", "short-refund-further-still-over").status, 400);
    const HttpReply rest = refundOf(paid, "1000", "short-refund-further-rest");
    EXPECT_EQ(rest.status, 200) << rest.body.constData();
    expectBooksAgree();
}

// A refund the channel paid out that keel has no record of (the merchant
// refunded in the channel's portal) is owed on no charge, but its line names
// the charge it came from: that charge is refunded no further than the
// channel still holds, while the case is open and after a person wrote it
// off (migration 0052). Before, the refund limited nothing, and keel could
// have sent the same customer their money a second time.
TEST_F(ShortfallParkingTest, ARefundKeelNeverMadeLimitsTheChargeItsLineNames)
{
    startGateway();
    const QByteArray paid = charge("amount=3000&currency=usd", "portal-refunded");
    const QByteArray other = charge("amount=3000&currency=usd", "portal-other");
    ASSERT_EQ(backdateBooks(), QStringLiteral("2"));
    m_day = firstPostingDay();
    ASSERT_EQ(import(naming(QStringLiteral("portal.csv"),
                            {item(paid, ",S1,payment,30.00,USD,0,%1T12:00:00Z,"),
                             item(other, ",S2,payment,30.00,USD,0,%1T12:00:00Z,"),
                             item("re_portal", ",R9,refund,10.00,USD,0,%1T13:00:00Z,") +
                                 QString::fromUtf8(paid)}))
                  .exitCode,
              0);
    EXPECT_EQ(scalar("SELECT payment_reference FROM keel.recon_lines WHERE kind = 'refund'"),
              QString::fromUtf8(paid));
    const QJsonObject first = run();
    EXPECT_EQ(breaks(first), QStringList{QStringLiteral("missing_at_keel:re_portal:new")});
    EXPECT_EQ(cases(), QStringLiteral("re_portal:1000:owed:open"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("5000"));
    expectVerified(first);
    m_gateway->maintain();
    const QByteArray merchant = scalar("SELECT merchant_id FROM keel.charges LIMIT 1").toUtf8();
    const QByteArray metrics = m_client->request("GET", "/metrics").body;
    const QByteArray merchantLine = "keel_recon_merchant_difference{merchant=\"" + merchant +
                                    QByteArray("\",currency=\"USD\"} 1000\n");
    EXPECT_TRUE(metrics.contains(merchantLine)) << "the merchant who refunded in the portal";

    const HttpReply twice = refundOf(paid, "2001", "portal-refunded-twice");
    EXPECT_EQ(twice.status, 400) << twice.body.constData();
    EXPECT_TRUE(twice.body.contains("2000 of it can still be refunded")) << twice.body.constData();
    EXPECT_EQ(refundOf(other, "3000", "portal-other-whole").status, 200)
        << "a charge the line does not name is not limited";

    EXPECT_EQ(approveAndRun(writeOffOfCaseOf("re_portal")).applied, 1);
    run();
    EXPECT_EQ(cases(), QStringLiteral("re_portal:1000:owed:written_off"));
    EXPECT_EQ(refundOf(paid, "2001", "portal-refunded-written-off").status, 400);
    const HttpReply rest = refundOf(paid, "2000", "portal-refunded-rest");
    EXPECT_EQ(rest.status, 200) << rest.body.constData();
    expectBooksAgree();
}

// The channel gives a refund's money back after a person wrote its owed
// case off (a corrected statement shows the refund paid out as keel let it
// go): the run parks back what the write-off left in clearing, once, in a
// held case for a person (migration 0053). The charge's refunds stay limited
// until the person writes the loss back. Before, clearing stayed short of the
// channel and nothing said so.
TEST_F(ShortfallParkingTest, MoneyTheChannelGaveBackAfterAWriteOffIsParkedBack)
{
    startGateway();
    const QString refundId = writtenOffThenGivenBack();
    ASSERT_FALSE(HasFatalFailure());
    EXPECT_EQ(cases(), QStringLiteral("%1:500:owed:written_off %1:500:held:open").arg(refundId));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("2000"))
        << "what the channel holds: 30.00 less the 10.00 it refunded";
    EXPECT_EQ(suspense(), QStringLiteral("500"));
    EXPECT_EQ(scalar(Withheld), QStringLiteral("500"))
        << "a run's result alone frees no refund: a person decides";
    run();
    run();
    EXPECT_EQ(postingsOf("suspense_in"), QStringLiteral("1")) << "parked back once";
    EXPECT_EQ(cases(), QStringLiteral("%1:500:owed:written_off %1:500:held:open").arg(refundId));

    EXPECT_EQ(approveAndRun(writeOffOfCaseOf(refundId.toUtf8())).applied, 1);
    EXPECT_EQ(balance("suspense_write_off:USD"), QStringLiteral("0")) << "the loss written back";
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    EXPECT_EQ(scalar(Withheld), QStringLiteral("0")) << "the channel holds all keel did not refund";
    EXPECT_EQ(scalar("SELECT resolution IS NULL FROM keel.recon_breaks"), QStringLiteral("t"))
        << "the write-off's decision no longer stands for the break";
    run();
    EXPECT_EQ(postingsOf("suspense_in"), QStringLiteral("1"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("2000"));
    expectBooksAgree();
}

// A person who puts the parked-back money back on clearing decides: the
// day's later runs do not park it back again (migration 0053, as a held
// difference put back stays the person's decision since migration 0051).
TEST_F(ShortfallParkingTest, AParkedBackCasePutBackOnClearingStaysPutBack)
{
    startGateway();
    const QString refundId = writtenOffThenGivenBack();
    ASSERT_FALSE(HasFatalFailure());
    SuspenseCaseFilter parkedBack;
    parkedBack.amountMin = parkedBack.amountMax = 500;
    auto listed = SuspenseQuery::queue(as(QStringLiteral("keel_operator")), parkedBack);
    ASSERT_TRUE(listed.ok() && listed->size() == 1);
    ProposalRequest putBack =
        CaseResolutions::chargeOwed(listed->first(), CaseResolutions::OwedBy::Loss);
    putBack.payload[QStringLiteral("postings")] =
        QJsonArray{QJsonObject{{QStringLiteral("account"), QStringLiteral("channel_clearing:USD")},
                               {QStringLiteral("amount"), -500}}};
    ASSERT_EQ(approveAndRun(putBack).applied, 1);
    ASSERT_EQ(balance("channel_clearing:USD"), QStringLiteral("1500"));
    run();
    run();
    EXPECT_EQ(postingsOf("suspense_in"), QStringLiteral("1")) << "not parked back again";
    EXPECT_EQ(cases(),
              QStringLiteral("%1:500:owed:written_off %1:500:held:resolved").arg(refundId));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("1500"));
    expectBooksAgree();
}

// A statement showing the difference again (corrected back) returns the case
// that parked the money back: the write-off stands. The withdrawal before it
// opened the break again, so the run opens a case of 0 beside the written-off
// one for a person to close, once, as without the parking back.
TEST_F(ShortfallParkingTest, AParkedBackCaseIsReturnedWhenTheDifferenceIsShownAgain)
{
    startGateway();
    const QString refundId = writtenOffThenGivenBack();
    ASSERT_FALSE(HasFatalFailure());
    QStringList again = capturedAndRefunded(m_paid, refundId, "15.00");
    again[1].replace(QLatin1String("T13:00:00Z"), QLatin1String("T13:00:01Z")); // a new file
    ASSERT_NO_FATAL_FAILURE(correctTheStatement(again));
    run();
    const QString expected =
        QStringLiteral("%1:500:owed:written_off %1:500:held:resolved %1:0:held:open").arg(refundId);
    EXPECT_EQ(cases(), expected);
    run();
    EXPECT_EQ(cases(), expected) << "the case of 0 is not closed and opened again";
    EXPECT_EQ(scalar("SELECT parks_back FROM keel.suspense_cases WHERE amount = 0"),
              QStringLiteral("f"))
        << "a case of 0 parks nothing back: the run closes it once the data resolves its break";
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("1500"));
    EXPECT_EQ(suspense(), QStringLiteral("0"));
    EXPECT_EQ(scalar(Withheld), QStringLiteral("500"));
    EXPECT_EQ(refundOf(m_paid, "1501", "given-back-over").status, 400);
    expectBooksAgree();
}

// An owed refund written off, then found again smaller by a corrected
// statement (the channel repaid part of it): what the write-off took beyond
// the difference now shown is parked back, held, beside it (migration 0053).
// Before, the excess stayed in clearing behind a case of 0. The charge's
// refunds stay limited by the whole write-off until a person settles the
// case; a statement corrected back returns it.
TEST_F(ShortfallParkingTest, AWrittenOffDebtFoundSmallerParksTheExcessBack)
{
    startGateway();
    const QString refundId = writtenOffDebt("owed-shrunk", "30.00");
    ASSERT_FALSE(HasFailure());
    const QByteArray paid = m_paid;
    ASSERT_NO_FATAL_FAILURE(correctTheStatement(capturedAndRefunded(paid, refundId, "15.00")));
    run();
    const QString excess =
        QStringLiteral("%1:2000:owed:written_off %1:1500:held:open").arg(refundId);
    EXPECT_EQ(cases(), excess);
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("1500"))
        << "what the channel holds: 30.00 less 15.00";
    EXPECT_EQ(scalar(Withheld), QStringLiteral("2000")) << "until a person settles the case";
    run();
    EXPECT_EQ(cases(), excess) << "once";
    expectBooksAgree();

    QStringList back = capturedAndRefunded(paid, refundId, "30.00");
    back[1].replace(QLatin1String("T13:00:00Z"), QLatin1String("T13:00:01Z")); // a new file
    ASSERT_NO_FATAL_FAILURE(correctTheStatement(back));
    run();
    EXPECT_EQ(cases(),
              QStringLiteral("%1:2000:owed:written_off %1:1500:held:resolved %1:0:held:open")
                  .arg(refundId))
        << "the excess case returned: the write-off covers the difference again";
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("0"));
    EXPECT_EQ(scalar(Withheld), QStringLiteral("2000"));
    expectBooksAgree();
}

// The excess of a written-off debt parked back and settled by a person does
// not stop the rest being parked back once the channel shows no difference
// at all: clearing ends where the statements are.
TEST_F(ShortfallParkingTest, ASettledExcessDoesNotStopTheRestBeingParkedBack)
{
    startGateway();
    const QString refundId = writtenOffDebt("owed-gone", "30.00");
    ASSERT_FALSE(HasFailure());
    const QByteArray paid = m_paid;
    ASSERT_NO_FATAL_FAILURE(correctTheStatement(capturedAndRefunded(paid, refundId, "25.00")));
    run();
    ASSERT_EQ(cases(), QStringLiteral("%1:2000:owed:written_off %1:500:held:open").arg(refundId));
    ASSERT_EQ(approveAndRun(writeOffOfCaseOf(refundId.toUtf8())).applied, 1);

    ASSERT_NO_FATAL_FAILURE(correctTheStatement(capturedAndRefunded(paid, refundId, "10.00")));
    run();
    EXPECT_EQ(cases(), QStringLiteral("%1:2000:owed:written_off %1:500:held:written_off "
                                      "%1:1500:held:open")
                           .arg(refundId));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("2000"))
        << "what the channel holds: 30.00 less the 10.00 it refunded";
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.suspense_cases WHERE amount = 0"),
              QStringLiteral("0"));
    expectBooksAgree();
}

// A written-off debt whose refund a corrected statement then shows paid out
// for less than keel let go: the run parks the write-off and the new held
// difference together, as money parked back, and a statement corrected back
// to the debt returns that case whole (migration 0053).
TEST_F(ShortfallParkingTest, AHeldCaseBesideAWrittenOffDebtIsReturnedWhenTheDebtIsShownAgain)
{
    startGateway();
    const QString refundId = writtenOffDebt("owed-turned", "30.00");
    ASSERT_FALSE(HasFailure());
    const QByteArray paid = m_paid;
    ASSERT_NO_FATAL_FAILURE(correctTheStatement(capturedAndRefunded(paid, refundId, "8.00")));
    run();
    ASSERT_EQ(cases(), QStringLiteral("%1:2000:owed:written_off %1:2200:held:open").arg(refundId));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("2200"))
        << "what the channel holds: 30.00 less 8.00";

    QStringList back = capturedAndRefunded(paid, refundId, "30.00");
    back[1].replace(QLatin1String("T13:00:00Z"), QLatin1String("T13:00:01Z")); // a new file
    ASSERT_NO_FATAL_FAILURE(correctTheStatement(back));
    run();
    EXPECT_EQ(cases(),
              QStringLiteral("%1:2000:owed:written_off %1:2200:held:resolved %1:0:held:open")
                  .arg(refundId));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("0"));
    expectBooksAgree();
}

// A corrected statement shows a refund paid out beyond keel by less than the
// owed case first parked: the run returns that case and parks what the break
// now shows (migration 0053). Before, the case stayed whole, and a person
// could settle it only whole, leaving clearing short by the rest.
TEST_F(ShortfallParkingTest, ARefundOwedFoundSmallerParksWhatTheBreakShows)
{
    startGateway();
    const QByteArray paid = charge("amount=3000&currency=usd", "owed-smaller");
    ASSERT_EQ(refundOf(paid, "1000", "owed-smaller-r").status, 200);
    const QString refundId = scalar("SELECT public_id FROM keel.refunds");
    ASSERT_NO_FATAL_FAILURE(
        pastTheLagReporting(QStringLiteral("2"), capturedAndRefunded(paid, refundId, "30.00")));
    run();
    ASSERT_EQ(cases(), QStringLiteral("%1:2000:owed:open").arg(refundId));
    ASSERT_EQ(balance("channel_clearing:USD"), QStringLiteral("0"));

    ASSERT_NO_FATAL_FAILURE(correctTheStatement(capturedAndRefunded(paid, refundId, "20.00")));
    run();
    EXPECT_EQ(cases(), QStringLiteral("%1:2000:owed:resolved %1:1000:owed:open").arg(refundId));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("1000"))
        << "what the channel holds: 30.00 less 20.00";
    EXPECT_EQ(scalar("SELECT keel.charge_withheld(id) FROM keel.charges"), QStringLiteral("1000"));
    run();
    EXPECT_EQ(cases(), QStringLiteral("%1:2000:owed:resolved %1:1000:owed:open").arg(refundId))
        << "once";
    expectBooksAgree();
}

// A portal refund's line names the charge it came from. Matched by hand with
// keel's unreported refund of another charge, the two are not one movement:
// the match would free the named charge to be refunded again (migration 0052).
// A statement withdrawn and corrected to name another charge limits that one
// alone from its run on.
TEST_F(ShortfallParkingTest, APortalRefundIsOfTheChargeItsLineNamesAlone)
{
    startGateway();
    const QByteArray first = charge("amount=3000&currency=usd", "portal-first");
    const QByteArray second = charge("amount=3000&currency=usd", "portal-second");
    ASSERT_EQ(refundOf(second, "1000", "portal-second-r").status, 200);
    const QString keelsRefund = scalar("SELECT public_id FROM keel.refunds");
    ASSERT_EQ(backdateBooks(), QStringLiteral("3"));
    m_day = firstPostingDay();
    const QStringList payments{item(first, ",S1,payment,30.00,USD,0,%1T12:00:00Z,"),
                               item(second, ",S2,payment,30.00,USD,0,%1T12:00:00Z,")};
    const QString portal = QStringLiteral("re_portal,R9,refund,10.00,USD,0,%1T13:00:00Z,");
    ASSERT_EQ(import(naming(QStringLiteral("portal-first.csv"),
                            payments + QStringList{portal + QString::fromUtf8(first)}))
                  .exitCode,
              0);
    run();
    const QMap<QString, ReconBreakRow> open = listed();
    ASSERT_TRUE(open.contains(QStringLiteral("re_portal")) && open.contains(keelsRefund));
    const QString refused = refusalOf(
        BreakResolutions::match(open.value(QStringLiteral("re_portal")), open.value(keelsRefund)));
    EXPECT_TRUE(refused.contains(QLatin1String("not one movement"))) << qPrintable(refused);
    const QByteArray withheld = "SELECT keel.charge_withheld(id) FROM keel.charges WHERE "
                                "public_id = '";
    EXPECT_EQ(scalar(withheld + first + "'"), QStringLiteral("1000"));

    ASSERT_NO_FATAL_FAILURE(correctTheStatementWith(
        naming(QStringLiteral("portal-second.csv"),
               payments + QStringList{portal + QString::fromUtf8(second)})));
    run();
    EXPECT_EQ(scalar(withheld + first + "'"), QStringLiteral("0")) << "no line names it now";
    EXPECT_EQ(scalar(withheld + second + "'"), QStringLiteral("1000"));
    expectBooksAgree();
}

// A line the channel withdraws after a person wrote its held money off: the
// money was never the channel's, so the run parks it back as owed, for a
// person to charge or write back (migration 0053).
TEST_F(ShortfallParkingTest, MoneySettledForALineTheChannelWithdrewIsParkedBack)
{
    startGateway();
    const QByteArray paid = charge("amount=3000&currency=usd", "withdrawn-settled");
    const QString payment = item(paid, ",S1,payment,30.00,USD,0,%1T12:00:00Z");
    ASSERT_NO_FATAL_FAILURE(pastTheLagReporting(
        QStringLiteral("1"),
        {payment, QStringLiteral("ch_neverMade00001,S9,payment,7.00,USD,0,%1T13:00:00Z")}));
    run();
    ASSERT_EQ(cases(), QStringLiteral("ch_neverMade00001:700:held:open"));
    ASSERT_EQ(approveAndRun(writeOffOfCaseOf("ch_neverMade00001")).applied, 1);
    ASSERT_EQ(balance("channel_clearing:USD"), QStringLiteral("3700"));

    ASSERT_NO_FATAL_FAILURE(correctTheStatement({payment}));
    run();
    EXPECT_EQ(cases(), QStringLiteral("ch_neverMade00001:700:held:written_off "
                                      "ch_neverMade00001:700:owed:open"));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("3000")) << "what the channel holds";
    run();
    EXPECT_EQ(postingsOf("suspense_owed"), QStringLiteral("1"));
    expectBooksAgree();
}

// The channel refunded less than keel let go, so a run parked the rest as
// held; a corrected statement then shows it paid out more than keel. A person
// settling the held case while it is open, by writing it off or by putting it
// back on clearing, does not settle the break: it is raised, the charge is
// refunded no further than the channel holds meanwhile, and the next run
// parks what the channel is owed (migration 0051). Before, the settlement
// resolved the break and nothing limited the charge's refunds.
class HeldRefundTurnedOwedTest : public ShortfallParkingTest,
                                 public testing::WithParamInterface<bool> {};

TEST_P(HeldRefundTurnedOwedTest, SettlingItsHeldCaseLimitsRefundsToWhatTheChannelHolds)
{
    const bool putBack = GetParam();
    startGateway();
    const QByteArray paid = charge("amount=3000&currency=usd", "short-refund-turned");
    ASSERT_EQ(refundOf(paid, "1000", "short-refund-turned-r").status, 200);
    const QString refundId = scalar("SELECT public_id FROM keel.refunds");
    ASSERT_NO_FATAL_FAILURE(
        pastTheLagReporting(QStringLiteral("2"), capturedAndRefunded(paid, refundId, "8.00")));
    run();
    ASSERT_EQ(cases(), QStringLiteral("%1:200:held:open").arg(refundId));
    ASSERT_NO_FATAL_FAILURE(correctTheStatement(capturedAndRefunded(paid, refundId, "20.00")));
    run();
    SuspenseCaseFilter ofTwo;
    ofTwo.amountMin = ofTwo.amountMax = 200;
    auto listed = SuspenseQuery::queue(as(QStringLiteral("keel_operator")), ofTwo);
    ASSERT_TRUE(listed.ok() && listed->size() == 1);
    const SuspenseCaseRow held = listed->first();

    ProposalRequest settle = writeOffOfCaseOf(refundId.toUtf8());
    if (putBack) {
        settle = CaseResolutions::chargeOwed(held, CaseResolutions::OwedBy::Loss);
        settle.payload[QStringLiteral("postings")] = QJsonArray{
            QJsonObject{{QStringLiteral("account"), QStringLiteral("channel_clearing:USD")},
                        {QStringLiteral("amount"), -200}}};
    }
    EXPECT_EQ(approveAndRun(settle).applied, 1);
    EXPECT_NE(scalar("SELECT status FROM keel.recon_breaks WHERE kind = 'refund'"),
              QStringLiteral("resolved"));
    // The channel holds 30.00 less 20.00.
    EXPECT_EQ(refundOf(paid, "1001", "short-refund-turned-over").status, 400);

    run();
    EXPECT_EQ(cases(),
              putBack ? QStringLiteral("%1:200:held:resolved %1:1000:owed:open").arg(refundId)
                      : QStringLiteral("%1:200:held:written_off %1:1200:owed:open").arg(refundId));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("1000")) << "what the channel holds";
    EXPECT_EQ(refundOf(paid, "1001", "short-refund-turned-still-over").status, 400);
    // Before migration 0053 the written-off held 2.00 counted as owed too.
    const HttpReply rest = refundOf(paid, "1000", "short-refund-turned-rest");
    EXPECT_EQ(rest.status, 200) << rest.body.constData();
    expectBooksAgree();
}

INSTANTIATE_TEST_SUITE_P(WrittenOffOrPutBack, HeldRefundTurnedOwedTest, testing::Bool());

// A line under the channel's id, parked and written off before keel knew the
// id, is counted on the charge's side once the id is known (see
// BreakResolutionTest's MoneyAPersonSettledForALine…): no more than the
// charge's own clearing money beyond what the channel shows is owed, and a
// run that finds the same capped difference again moves nothing.
TEST_F(ShortfallParkingTest, ACappedShortfallIsParkedOnceNotOnEveryRun)
{
    startGateway();
    const QByteArray paid = charge("amount=1000&currency=usd", "short-capped");
    const QString paidId = scalar("SELECT channel_reference FROM keel.charges");
    ASSERT_FALSE(paidId.isEmpty());
    ASSERT_EQ(scalar("WITH u AS (UPDATE keel.charges SET channel_reference = NULL RETURNING 1) "
                     "SELECT count(*) FROM u"),
              QStringLiteral("1"));
    ASSERT_NO_FATAL_FAILURE(pastTheLagReporting(
        QStringLiteral("1"),
        {paidId + u',' + paidId + QStringLiteral(",payment,10.00,USD,0,%1T12:00:00Z"),
         item(paid, ",S9,reversal,4.00,USD,0,%1T13:00:00Z")}));
    ASSERT_EQ(run().value(QStringLiteral("cases_opened")).toInt(), 2);
    EXPECT_EQ(approveAndRun(writeOffOfCaseOf(paidId.toUtf8())).applied, 1);
    ASSERT_EQ(scalar("WITH u AS (UPDATE keel.charges SET channel_reference = '" + paidId.toUtf8() +
                     "' RETURNING 1) SELECT count(*) FROM u"),
              QStringLiteral("1"));

    const QJsonObject found = run();
    EXPECT_EQ(cases(), QStringLiteral("%1:1000:held:written_off %2:1000:owed:resolved "
                                      "%2:400:owed:open")
                           .arg(paidId, QString::fromUtf8(paid)))
        << "the capture's case returned, the dispute's 4.00 parked";
    const auto moves = [this] {
        return QString(postingsOf("suspense_owed") + u' ' + postingsOf("suspense_return"));
    };
    const QString before = moves();
    for (int again = 0; again < 2; ++again)
        EXPECT_EQ(run().value(QStringLiteral("cases_opened")).toInt(), 0);
    EXPECT_EQ(moves(), before) << "nothing moves on each run";
    EXPECT_EQ(cases(), QStringLiteral("%1:1000:held:written_off %2:1000:owed:resolved "
                                      "%2:400:owed:open")
                           .arg(paidId, QString::fromUtf8(paid)));
    EXPECT_EQ(balance("channel_clearing:USD"), QStringLiteral("1600"))
        << "6.00 of the charge and the 10.00 settled for its line";
    expectBooksAgree();
    expectVerified(found);
}

// A shortfall found before migration 0050 had its case of 0 opened already;
// the day's next run closes that case and opens one that parks the money, so
// an upgrade leaves no shortfall chased without it.
TEST_F(ShortfallParkingTest, ACaseOfZeroOpenedBeforeShortfallsWereParkedGivesWay)
{
    startGateway();
    const QByteArray paid = charge("amount=1000&currency=usd", "short-upgrade-paid");
    const QByteArray unpaid = charge("amount=1500&currency=usd", "short-upgrade-unpaid");
    scalar("UPDATE keel.recon_channels SET settlement_lag = '7 days' WHERE channel = 'sim' "
           "RETURNING 1");
    ASSERT_NO_FATAL_FAILURE(pastTheLagReporting(
        QStringLiteral("2"), {item(paid, ",S1,payment,10.00,USD,0,%1T12:00:00Z")}));
    ASSERT_EQ(run().value(QStringLiteral("cases_opened")).toInt(), 0) << "within the lag";
    // What migration 0040's recon_open_cases opened for it.
    ASSERT_EQ(scalar("WITH k AS (INSERT INTO keel.suspense_cases (charge_id, currency, amount, "
                     "reason, recon_break_id) SELECT c.id, 'USD', 0, 'chased before v50', b.id "
                     "FROM keel.recon_breaks b JOIN keel.charges c ON c.public_id = b.reference "
                     "RETURNING 1) SELECT count(*) FROM k"),
              QStringLiteral("1"));
    scalar("UPDATE keel.recon_channels SET settlement_lag = '1 day' WHERE channel = 'sim' "
           "RETURNING 1");

    const QJsonObject lagOver = run();
    EXPECT_EQ(lagOver.value(QStringLiteral("cases_opened")).toInt(), 1);
    EXPECT_EQ(
        cases(),
        QStringLiteral("%1:0:held:resolved %1:1500:owed:open").arg(QString::fromUtf8(unpaid)));
    EXPECT_EQ(scalar("SELECT resolution ->> 'kind' FROM keel.suspense_cases WHERE amount = 0"),
              QStringLiteral("recon_run"));
    EXPECT_EQ(suspense(), QStringLiteral("-1500"));
    EXPECT_TRUE(breaks(run()).isEmpty()) << "the charge reconciles";
    EXPECT_EQ(postingsOf("suspense_owed"), QStringLiteral("1"));
    expectBooksAgree();
}

// Only a run parks or returns money between clearing and suspense: the
// service login writes neither posting, nor an owed case, by hand.
TEST_F(ShortfallParkingTest, TheServiceLoginParksNothingOutsideARun)
{
    auto service = LibpqConnection::open(m_serviceLogin);
    ASSERT_TRUE(service.ok());
    for (const char *byHand :
         {"INSERT INTO keel.ledger_transactions (kind, description) "
          "VALUES ('suspense_owed', 'by hand')",
          "INSERT INTO keel.ledger_transactions (kind, description) "
          "VALUES ('suspense_return', 'by hand')",
          "INSERT INTO keel.suspense_cases (currency, amount, reason, direction) "
          "VALUES ('USD', 0, 'by hand', 'owed')"}) {
        const Status refused = service->exec(byHand);
        ASSERT_FALSE(refused.ok()) << byHand;
        EXPECT_EQ(refused.error().code, QLatin1String("42501")) << byHand;
    }
    EXPECT_EQ(scalar("SELECT count(*) FROM keel.ledger_transactions"), QStringLiteral("0"));
}

} // namespace
