#pragma once

#include "core/db/ConnectionSettings.h"
#include "core/idempotency/IdempotencyStore.h"
#include "core/merchant/Merchant.h"
#include "core/money/Currency.h"

#include <QString>

#include <memory>

namespace keel {

class Channel;

// What every payment service of one process shares. Immutable after start-up,
// so handler threads read it without locks.
struct PaymentContext {
    ConnectionSettings settings;
    std::shared_ptr<Channel> channel;
    CurrencyTable currencies;
    IdempotencyPolicy idempotency;
    QString instance;              // names this process as a key's holder
    int expectedDurationMs = 2000; // how long a charge usually takes, for Retry-After
};

} // namespace keel
