#pragma once

#include "core/Result.h"

namespace keel {

class LibpqConnection;

// The gauges of what the database holds, whichever process does the work:
// sagas stuck, the outbox's lag, backlog and parked rows, suspense cases past
// their deadline, the oldest payment in doubt. The gateway's /metrics is the one an SRE scrapes, so
// its housekeeping reads them, though the worker and the relay keep them too.
Status refreshDatabaseGauges(LibpqConnection &session);

} // namespace keel
