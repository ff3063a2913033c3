#pragma once

#include "core/Result.h"

#include <QString>

namespace keel {

class LibpqConnection;

// Records the fee a channel's contract sets, in millionths of a payment, for
// fee_variance to check against (and on the audit trail).
Status setContractedFeeRate(LibpqConnection &session, const QString &channel, qint64 ppm);

} // namespace keel
