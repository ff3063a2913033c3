#pragma once

#include "core/payment/PaymentState.h"

#include <QStringList>

namespace keel {

// Counts what the payment services did, in the process's metrics.
namespace paymentMetrics {
// Each whitelisted transition walked from `from` along `events`.
void countSteps(PaymentState from, const QStringList &events);
void countTransition(PaymentState from, PaymentState to);
} // namespace paymentMetrics

} // namespace keel
