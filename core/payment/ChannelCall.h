#pragma once

#include "core/Result.h"
#include "core/payment/Channel.h"

namespace keel {

// One channel operation. With `askFirst` (a request that took over a key, or
// a retry after a lost answer) the channel is asked what it knows of the
// operation first (补单), and it is executed only if the network never saw it:
// never guess what the network did with the first attempt. A query the channel
// cannot answer fails with ErrorCode::ChannelUnreachable, and nothing is sent.
Result<ChannelResult> callChannel(Channel &channel, const ChannelRequest &request, bool askFirst);

// Only asks; for the reconciler, which never sends anything new.
Result<ChannelResult> askChannel(Channel &channel, const QString &reference,
                                 const QString &operation);

} // namespace keel
