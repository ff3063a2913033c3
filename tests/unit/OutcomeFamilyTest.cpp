// Every payment outcome belongs to one family, and what a client is told
// follows from it: "not now" kinds are the only ones a key does not keep,
// and the only ones the API tells a client to retry.

#include "core/api/StripeReplies.h"
#include "core/payment/PaymentOutcome.h"

#include <gtest/gtest.h>

#include <variant>

using namespace keel;
using Kind = PaymentOutcome::Kind;

namespace {

// An outcome of `kind` with whatever its rendering reads.
PaymentOutcome example(Kind kind)
{
    ChargeRecord charge;
    charge.publicId = QStringLiteral("ch_family");
    charge.amount = 500;
    charge.currency = QStringLiteral("USD");
    PaymentOutcome outcome = PaymentOutcome::ofCharge(kind, charge);
    RefundRecord refund;
    refund.publicId = QStringLiteral("re_family");
    refund.chargePublicId = charge.publicId;
    refund.amount = 500;
    refund.currency = QStringLiteral("USD");
    outcome.refund = refund;
    outcome.stored = {200, {}, "{}"};
    outcome.error = fieldError(QStringLiteral("amount"), QStringLiteral("parameter_invalid"),
                               QStringLiteral("amount is wrong"));
    return outcome;
}

} // namespace

TEST(OutcomeFamilyTest, OnlyTheNotNowFamilyIsTransientAndAskedToRetry)
{
    StripeReplies replies;
    int notNow = 0;
    for (int k = 0; k <= int(Kind::StoreUnavailable); ++k) {
        const PaymentOutcome outcome = example(Kind(k));
        const bool transient = std::holds_alternative<outcomes::NotNow>(outcome.family());
        notNow += transient ? 1 : 0;
        EXPECT_EQ(outcome.final(), !transient) << k;
        const StoredResponse reply = replies.render(outcome);
        bool retry = false;
        for (const auto &[name, value] : reply.headers)
            retry = retry || (name.toLower() == "stripe-should-retry" && value == "true");
        if (transient) {
            EXPECT_TRUE(retry) << k;
            EXPECT_TRUE(reply.status == 409 || reply.status >= 500) << k << " " << reply.status;
        }
        if (std::holds_alternative<outcomes::Refused>(outcome.family())) {
            EXPECT_TRUE(reply.status >= 400 && reply.status < 500 && !retry)
                << k << " " << reply.status;
        }
        if (std::holds_alternative<outcomes::Settled>(outcome.family())) {
            EXPECT_EQ(reply.status, 200) << k;
        }
        if (std::holds_alternative<outcomes::CardFailure>(outcome.family())) {
            EXPECT_EQ(reply.status, 402) << k;
        }
    }
    EXPECT_EQ(notNow, 5);
}

TEST(OutcomeFamilyTest, EachKindKeepsItsOwnAnswerWithinItsFamily)
{
    StripeReplies replies;
    EXPECT_EQ(replies.render(example(Kind::KeyReusedDifferently)).status, 422);
    EXPECT_EQ(replies.render(example(Kind::ChargeNotFound)).status, 404);
    EXPECT_EQ(replies.render(example(Kind::ChannelUnavailable)).status, 502);
    EXPECT_EQ(replies.render(example(Kind::StoreUnavailable)).status, 503);
    EXPECT_TRUE(replies.render(example(Kind::Refund)).body.contains("\"object\":\"refund\""));
    EXPECT_TRUE(replies.render(example(Kind::Charge)).body.contains("\"object\":\"charge\""));
}
