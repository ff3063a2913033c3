#pragma once

#include "core/Result.h"
#include "core/payment/Channel.h"
#include "core/payment/PaymentContext.h"

#include <memory>

namespace keel {

class LibpqConnection;

// What every keel service process does before it serves: check that the
// database has the schema this binary was built for, open its housekeeping
// connection, and assemble the payment context its threads share.
struct ProcessSetup {
    PaymentContext context;
    std::unique_ptr<LibpqConnection> housekeeping;

    // `applicationName` names the process's connections in pg_stat_activity
    // unless the settings name them already.
    static Result<ProcessSetup> prepare(const ConnectionSettings &settings,
                                        const ChannelFactory &channel,
                                        const IdempotencyPolicy &idempotency,
                                        const QString &applicationName);
};

} // namespace keel
