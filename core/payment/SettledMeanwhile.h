#pragma once

#include "core/payment/Channel.h"
#include "core/payment/PaymentState.h"

namespace keel {

struct ChargeRecord;

// Which of a charge's channel operations a call is.
enum class ChargeStep : bool { Authorize, Capture };

// How the payment as it stands now compares with what the channel told a
// request whose own write lost to another that settled the same payment
// first (the channel's notification, the reconciler).
enum class Agreement {
    SameApproval, // approved, and the payment got as far as this call meant to take it
    SameFailure,  // the authorization was refused, and the payment failed
    Differs,      // anything else: the request must not claim the other writer's result
};

// Pure: `asked` is the charge as the request saw it, `step` the call it made,
// `told` the channel's answer to it, `now` the payment's state after the
// other writer.
Agreement agreementWith(const ChargeRecord &asked, ChargeStep step, ChannelOutcome told,
                        PaymentState now);

} // namespace keel
