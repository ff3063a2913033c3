#include "core/payment/PaymentMetrics.h"

#include "core/metrics/Metrics.h"

#include <mutex>

namespace keel::paymentMetrics {
namespace {

// Every whitelisted pair shows in /metrics from the first count on, at zero
// until it happens, so a rate over it is defined.
void declareWhitelist()
{
    static std::once_flag declared;
    std::call_once(declared, [] {
        constexpr int States = int(PaymentState::Canceled) + 1;
        for (int from = 0; from < States; ++from)
            for (int to = 0; to < States; ++to)
                if (transitionAllowed(PaymentState(from), PaymentState(to)))
                    Metrics::instance().declareTransition(stateName(PaymentState(from)),
                                                          stateName(PaymentState(to)));
    });
}

} // namespace

void countTransition(PaymentState from, PaymentState to)
{
    declareWhitelist();
    Metrics::instance().countTransition(stateName(from), stateName(to));
}

void countSteps(PaymentState from, const QStringList &events)
{
    PaymentState state = from;
    for (const QString &event : events) {
        if (const std::optional<Transition> step = transitionFor(state, event)) {
            countTransition(step->from, step->to);
            state = step->to;
        }
    }
}

} // namespace keel::paymentMetrics
