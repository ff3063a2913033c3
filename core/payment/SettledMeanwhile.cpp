#include "core/payment/SettledMeanwhile.h"

#include "core/payment/ChargeRecord.h"

namespace keel {

Agreement agreementWith(const ChargeRecord &asked, ChargeStep step, ChannelOutcome told,
                        PaymentState now)
{
    const bool capturing = step == ChargeStep::Capture;
    if (told == ChannelOutcome::Approved) {
        // A capturing call, or an authorization that captures at once, is
        // answered only by a payment that went past Authorized.
        const bool wantedCaptured = capturing || asked.capture;
        const bool reached = wantedCaptured
                                 ? now != PaymentState::Authorized && isApprovedState(now)
                                 : isApprovedState(now);
        return reached ? Agreement::SameApproval : Agreement::Differs;
    }
    if (!capturing && now == PaymentState::Failed)
        return Agreement::SameFailure;
    return Agreement::Differs;
}

} // namespace keel
