#pragma once

#include "core/Result.h"
#include "core/payment/Channel.h"

namespace keel {

// Whether this operation may have reached the channel before: a request that
// took over a key, or a retry after a lost answer.
enum class EarlierAttempt : bool { None, Possible };

// One channel operation. After a possible earlier attempt the channel is asked
// what it knows of the operation first (补单), and it is executed only if the
// network never saw it: never guess what the network did with the first
// attempt. A query the channel cannot answer fails with
// ErrorCode::ChannelUnreachable, and nothing is sent.
Result<ChannelResult> callChannel(Channel &channel, const ChannelRequest &request,
                                  EarlierAttempt earlier);

// Only asks; for the reconciler, which never sends anything new.
Result<ChannelResult> askChannel(Channel &channel, const QString &reference,
                                 const QString &operation);

} // namespace keel
