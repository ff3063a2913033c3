#pragma once

#include "core/saga/StepAnswer.h"

namespace keel {

struct ChargeRecord;
struct PaymentOutcome;
namespace outcomes {
enum class NotNow;
}

// What a payment step's outcome means for the saga, decided from the
// outcome alone (no database): the pure half of PaymentSteps.

// A charge step, from the charge as it now stands: captured (or refunded
// since) succeeded, failed/canceled/reversed failed, anything else is still
// going on.
StepAnswer chargeStepAnswer(const ChargeRecord &charge);

// A compensating refund of `charge`: done, still going on, or to be tried
// again in a later round.
StepAnswer refundStepAnswer(const PaymentOutcome &outcome, const ChargeRecord &charge);

// An outcome that says "not now" (busy, unreachable), with its reason.
StepAnswer transientStepAnswer(const PaymentOutcome &outcome, StepAnswer::Verdict verdict);

// "Not now" for a payment step: still going on while another request holds
// the payment, worth another attempt later when something below failed.
StepAnswer notNowStepAnswer(const PaymentOutcome &outcome, outcomes::NotNow later);

} // namespace keel
