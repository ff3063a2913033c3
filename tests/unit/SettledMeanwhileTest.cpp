#include "core/payment/SettledMeanwhile.h"
#include "core/payment/ChargeRecord.h"

#include <gtest/gtest.h>

namespace keel::test {
namespace {

ChargeRecord asked(bool captureAtOnce)
{
    ChargeRecord charge;
    charge.capture = captureAtOnce;
    return charge;
}

TEST(SettledMeanwhileTest, AnApprovalAgreesOnlyWithAPaymentThatGotAsFarAsTheCallMeant)
{
    // Authorize only: Authorized (or beyond) is the same approval.
    EXPECT_EQ(agreementWith(asked(false), ChargeStep::Authorize, ChannelOutcome::Approved,
                            PaymentState::Authorized),
              Agreement::SameApproval);
    // Authorize and capture at once: Authorized is not enough.
    EXPECT_EQ(agreementWith(asked(true), ChargeStep::Authorize, ChannelOutcome::Approved,
                            PaymentState::Authorized),
              Agreement::Differs);
    EXPECT_EQ(agreementWith(asked(true), ChargeStep::Authorize, ChannelOutcome::Approved,
                            PaymentState::Captured),
              Agreement::SameApproval);
    // A capture call: the payment must be captured (or refunded since).
    EXPECT_EQ(agreementWith(asked(false), ChargeStep::Capture, ChannelOutcome::Approved,
                            PaymentState::Authorized),
              Agreement::Differs);
    EXPECT_EQ(agreementWith(asked(false), ChargeStep::Capture, ChannelOutcome::Approved,
                            PaymentState::Refunded),
              Agreement::SameApproval);
    // Approved by the channel, failed by the other writer: never claimed.
    EXPECT_EQ(agreementWith(asked(false), ChargeStep::Authorize, ChannelOutcome::Approved,
                            PaymentState::Failed),
              Agreement::Differs);
}

TEST(SettledMeanwhileTest, ARefusedAuthorizationAgreesWithAFailedPaymentOnly)
{
    for (const ChannelOutcome told : {ChannelOutcome::Declined, ChannelOutcome::Failed}) {
        EXPECT_EQ(agreementWith(asked(true), ChargeStep::Authorize, told, PaymentState::Failed),
                  Agreement::SameFailure);
        EXPECT_EQ(agreementWith(asked(true), ChargeStep::Authorize, told, PaymentState::Captured),
                  Agreement::Differs);
    }
    // A refused capture never makes the payment failed: it stays authorized.
    EXPECT_EQ(agreementWith(asked(false), ChargeStep::Capture, ChannelOutcome::Declined,
                            PaymentState::Failed),
              Agreement::Differs);
    // A lost answer agrees with nothing.
    EXPECT_EQ(agreementWith(asked(false), ChargeStep::Authorize, ChannelOutcome::Unknown,
                            PaymentState::Authorized),
              Agreement::Differs);
}

} // namespace
} // namespace keel::test
