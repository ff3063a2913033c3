#pragma once

#include "core/Result.h"

#include <QString>

namespace keel {

class LibpqConnection;

// Records the fee a channel's contract sets, in millionths of a payment, for
// fee_variance to check against (and on the audit trail).
Status setContractedFeeRate(LibpqConnection &session, const QString &channel, qint64 ppm);

// The time zone a channel's business days are cut in (recon_channels).
Result<QString> channelTimeZone(LibpqConnection &session, const QString &channel);

} // namespace keel
