#include "core/saga/StepVerdicts.h"
#include "core/payment/ChargeRecord.h"
#include "core/payment/PaymentOutcome.h"

#include <gtest/gtest.h>

namespace keel::test {
namespace {

using Kind = PaymentOutcome::Kind;
using Verdict = StepAnswer::Verdict;

ChargeRecord chargeIn(PaymentState state, qint64 captured = 2500, qint64 refunded = 0)
{
    ChargeRecord charge;
    charge.id = 7;
    charge.publicId = QStringLiteral("ch_step");
    charge.state = state;
    charge.amountCaptured = captured;
    charge.amountRefunded = refunded;
    return charge;
}

PaymentOutcome refundOutcome(const char *status)
{
    RefundRecord refund;
    refund.publicId = QStringLiteral("re_step");
    refund.status = QString::fromLatin1(status);
    return PaymentOutcome::ofRefund(Kind::Refund, refund);
}

TEST(StepVerdictsTest, AChargeStepSucceedsOnlyOnceTheMoneyIsCaptured)
{
    for (PaymentState state :
         {PaymentState::Captured, PaymentState::Refunding, PaymentState::Refunded}) {
        const StepAnswer answer = chargeStepAnswer(chargeIn(state));
        EXPECT_EQ(answer.verdict, Verdict::Succeeded);
        EXPECT_EQ(answer.chargeId, 7);
        EXPECT_EQ(answer.resultJson, QByteArray(R"({"charge":"ch_step"})"));
    }
    for (PaymentState state :
         {PaymentState::Failed, PaymentState::Canceled, PaymentState::Reversed})
        EXPECT_EQ(chargeStepAnswer(chargeIn(state)).verdict, Verdict::Failed);
    // Authorized is not yet the money: the saga waits rather than moving on.
    for (PaymentState state : {PaymentState::Created, PaymentState::Authorizing,
                               PaymentState::Authorized, PaymentState::Capturing})
        EXPECT_EQ(chargeStepAnswer(chargeIn(state)).verdict, Verdict::Ongoing);
}

TEST(StepVerdictsTest, ACompensatingRefundIsDoneOnlyWhenTheMoneyWentBack)
{
    const ChargeRecord charge = chargeIn(PaymentState::Captured);
    EXPECT_EQ(refundStepAnswer(refundOutcome("succeeded"), charge).verdict, Verdict::Succeeded);
    EXPECT_EQ(refundStepAnswer(refundOutcome("pending"), charge).verdict, Verdict::Ongoing);
    // Refused by the channel: a later round tries a fresh refund.
    EXPECT_EQ(refundStepAnswer(refundOutcome("failed"), charge).verdict, Verdict::Retryable);

    // "Not refundable" because it was refunded in full already is done;
    // for any other reason it is tried again, never called done.
    PaymentOutcome unrefundable = PaymentOutcome::ofCharge(
        Kind::ChargeNotRefundable, chargeIn(PaymentState::Refunded, 2500, 2500));
    EXPECT_EQ(refundStepAnswer(unrefundable, charge).verdict, Verdict::Succeeded);
    unrefundable.charge = chargeIn(PaymentState::Refunding, 2500, 1000);
    EXPECT_EQ(refundStepAnswer(unrefundable, charge).verdict, Verdict::Retryable);

    PaymentOutcome held = PaymentOutcome::of(Kind::ChargeHeldInSuspense);
    held.reference = QStringLiteral("42");
    const StepAnswer heldAnswer = refundStepAnswer(held, charge);
    EXPECT_EQ(heldAnswer.verdict, Verdict::Retryable);
    EXPECT_TRUE(heldAnswer.error.contains(QLatin1String("suspense case 42")));
}

TEST(StepVerdictsTest, BusyIsOngoingAndUnreachableIsRetryableWithTheReason)
{
    const ChargeRecord charge = chargeIn(PaymentState::Captured);
    for (Kind busy : {Kind::RefundInProgress, Kind::KeyInFlight, Kind::Contended})
        EXPECT_EQ(refundStepAnswer(PaymentOutcome::of(busy), charge).verdict, Verdict::Ongoing);
    const PaymentOutcome down = PaymentOutcome::failure(
        codedError(ErrorKind::Connection, QStringLiteral("08006"), QStringLiteral("db gone")));
    const StepAnswer answer = refundStepAnswer(down, charge);
    EXPECT_EQ(answer.verdict, Verdict::Retryable);
    EXPECT_EQ(answer.error, QStringLiteral("db gone"));
    EXPECT_EQ(transientStepAnswer(PaymentOutcome::of(Kind::Contended), Verdict::Ongoing).error,
              QStringLiteral("the payment is busy; trying again"));
}

} // namespace
} // namespace keel::test
