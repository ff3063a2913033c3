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
//
// A refused authorization or refund comes back Failed only once the channel
// has closed it (closeUnprocessed); a refused capture as it is, since keel
// sends it again under the same reference.
Result<ChannelResult> callChannel(Channel &channel, const ChannelRequest &request,
                                  EarlierAttempt earlier);

// Only asks; for the reconciler, which never sends anything new. An
// operation closed at the channel reads as Failed.
Result<ChannelResult> askChannel(Channel &channel, const ChannelRequest &operation);

// "Not processed" and "never seen" speak for one request only: a twin sent by
// a retry, a takeover or the reconciler may still reach the network after it
// and take the money for a payment keel had failed. So before keel calls an
// operation failed, the channel closes it (关单). Returns Failed (with `why`)
// when it closed, the channel's own answer when the operation had been
// processed after all, and Unknown when the channel could not close it: the
// payment then stays in flight for the reconciler.
ChannelResult closeUnprocessed(Channel &channel, const ChannelRequest &operation,
                               const QString &why);

} // namespace keel
