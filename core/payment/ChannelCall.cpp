#include "core/payment/ChannelCall.h"

namespace keel {
namespace {

// A failed capture leaves its authorization standing, and keel sends the
// capture again under the same reference; a failed authorization or refund
// is final for its reference.
bool refusalIsFinal(const QString &operation)
{
    return operation != QLatin1String("capture");
}

ChannelResult closedBefore(const ChannelResult &answer)
{
    if (answer.outcome != ChannelOutcome::Closed)
        return answer;
    return {ChannelOutcome::Failed, {}, QStringLiteral("the operation was closed at the channel")};
}

} // namespace

ChannelResult closeUnprocessed(Channel &channel, const QString &reference, const QString &operation,
                               const QString &why)
{
    const ChannelResult closed = channel.close(reference, operation);
    switch (closed.outcome) {
    case ChannelOutcome::Closed:
        return {ChannelOutcome::Failed, {}, why};
    case ChannelOutcome::Approved:
    case ChannelOutcome::Declined:
        return closed;
    case ChannelOutcome::Failed:
    case ChannelOutcome::Unknown:
    case ChannelOutcome::NotFound:
        break;
    }
    return {ChannelOutcome::Unknown,
            {},
            QStringLiteral("channel %1 could not close %2 %3: %4")
                .arg(channel.name(), operation, reference, closed.message)};
}

Result<ChannelResult> askChannel(Channel &channel, const QString &reference,
                                 const QString &operation)
{
    ChannelResult known = channel.query(reference, operation);
    if (known.outcome == ChannelOutcome::Unknown)
        return codedError(ErrorKind::Failed, QString::fromLatin1(ErrorCode::ChannelUnreachable),
                          QStringLiteral("channel %1 did not say what became of %2 %3")
                              .arg(channel.name(), operation, reference));
    return closedBefore(known);
}

Result<ChannelResult> callChannel(Channel &channel, const ChannelRequest &request,
                                  EarlierAttempt earlier)
{
    if (earlier == EarlierAttempt::Possible) {
        Result<ChannelResult> known = askChannel(channel, request.reference, request.operation);
        if (!known || known->outcome != ChannelOutcome::NotFound)
            return known;
    }
    const ChannelResult answer = closedBefore(channel.execute(request));
    if (answer.outcome == ChannelOutcome::Failed && refusalIsFinal(request.operation))
        return closeUnprocessed(channel, request.reference, request.operation, answer.message);
    return answer;
}

} // namespace keel
