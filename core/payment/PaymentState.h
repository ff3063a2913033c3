#pragma once

#include <QString>

#include <optional>

namespace keel {

// The card-payment states of the design's state machine.
enum class PaymentState {
    Created,
    Authorizing,
    Authorized,
    Failed,
    Capturing,
    Captured,
    Refunding,
    Refunded,
    Reversed,
    Canceled,
};

QString stateName(PaymentState state);
std::optional<PaymentState> stateFromName(const QString &name);
bool isTerminal(PaymentState state);
// A state only an approved authorization leads to.
bool isApprovedState(PaymentState state);

// A state change and the event that causes it. Only the whitelist below
// exists: anything else (Refunded -> Captured, say) is refused.
struct Transition {
    PaymentState from;
    PaymentState to;
    const char *event;
};

// The whitelisted transition for (from, event), if any.
std::optional<Transition> transitionFor(PaymentState from, const QString &event);
bool transitionAllowed(PaymentState from, PaymentState to);

} // namespace keel
