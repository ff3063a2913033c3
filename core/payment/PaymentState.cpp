#include "core/payment/PaymentState.h"

#include <array>

namespace keel {
namespace {

using S = PaymentState;

constexpr std::array<Transition, 13> Whitelist{{
    {S::Created, S::Authorizing, "submit"},
    {S::Created, S::Canceled, "cancel"},
    {S::Authorizing, S::Authorized, "auth_ok"},
    {S::Authorizing, S::Failed, "auth_fail"},
    {S::Authorized, S::Capturing, "capture"},
    {S::Authorized, S::Reversed, "void"},
    {S::Capturing, S::Captured, "capture_ok"},
    {S::Capturing, S::Authorized, "capture_retry"},
    {S::Captured, S::Refunding, "refund"},
    {S::Refunding, S::Refunded, "refund_ok"},
    // A partial refund that completed leaves the rest of the charge captured.
    {S::Refunding, S::Captured, "refund_partial_ok"},
    {S::Refunding, S::Captured, "refund_fail"},
    // An authorization the channel never confirmed and no longer knows of.
    {S::Authorizing, S::Failed, "auth_expired"},
}};

constexpr std::array<const char *, 10> Names{"Created",   "Authorizing", "Authorized", "Failed",
                                             "Capturing", "Captured",    "Refunding",  "Refunded",
                                             "Reversed",  "Canceled"};

} // namespace

QString stateName(PaymentState state)
{
    return QString::fromLatin1(Names.at(size_t(state)));
}

std::optional<PaymentState> stateFromName(const QString &name)
{
    for (size_t i = 0; i < Names.size(); ++i)
        if (name == QLatin1String(Names[i]))
            return PaymentState(i);
    return std::nullopt;
}

bool isApprovedState(PaymentState state)
{
    return state == PaymentState::Authorized || state == PaymentState::Captured ||
           state == PaymentState::Refunding || state == PaymentState::Refunded ||
           state == PaymentState::Reversed;
}

bool isTerminal(PaymentState state)
{
    return state == S::Failed || state == S::Refunded || state == S::Reversed ||
           state == S::Canceled;
}

std::optional<Transition> transitionFor(PaymentState from, const QString &event)
{
    for (const Transition &transition : Whitelist)
        if (transition.from == from && event == QLatin1String(transition.event))
            return transition;
    return std::nullopt;
}

bool transitionAllowed(PaymentState from, PaymentState to)
{
    for (const Transition &transition : Whitelist)
        if (transition.from == from && transition.to == to)
            return true;
    return false;
}

} // namespace keel
