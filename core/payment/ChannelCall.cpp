#include "core/payment/ChannelCall.h"

namespace keel {

Result<ChannelResult> askChannel(Channel &channel, const QString &reference,
                                 const QString &operation)
{
    ChannelResult known = channel.query(reference, operation);
    if (known.outcome == ChannelOutcome::Unknown)
        return codedError(ErrorKind::Failed, QString::fromLatin1(ErrorCode::ChannelUnreachable),
                          QStringLiteral("channel %1 did not say what became of %2 %3")
                              .arg(channel.name(), operation, reference));
    return known;
}

Result<ChannelResult> callChannel(Channel &channel, const ChannelRequest &request,
                                  EarlierAttempt earlier)
{
    if (earlier == EarlierAttempt::Possible) {
        Result<ChannelResult> known = askChannel(channel, request.reference, request.operation);
        if (!known || known->outcome != ChannelOutcome::NotFound)
            return known;
    }
    return channel.execute(request);
}

} // namespace keel
