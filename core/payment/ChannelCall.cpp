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

ChannelResult closeUnprocessed(Channel &channel, const ChannelRequest &operation,
                               const QString &why)
{
    const ChannelResult closed = channel.close(operation);
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
                .arg(channel.name(), operation.operation, operation.reference, closed.message)};
}

namespace {

// A refusal keel would take as final is closed at the channel first.
ChannelResult finalRefusal(Channel &channel, const ChannelRequest &operation,
                           const ChannelResult &answer)
{
    if (answer.outcome == ChannelOutcome::Failed && refusalIsFinal(operation.operation))
        return closeUnprocessed(channel, operation, answer.message);
    return answer;
}

} // namespace

Result<ChannelResult> askChannel(Channel &channel, const ChannelRequest &operation)
{
    ChannelResult known = channel.query(operation);
    if (known.outcome == ChannelOutcome::Unknown)
        return codedError(ErrorKind::Failed, QString::fromLatin1(ErrorCode::ChannelUnreachable),
                          QStringLiteral("channel %1 did not say what became of %2 %3")
                              .arg(channel.name(), operation.operation, operation.reference));
    if (known.outcome == ChannelOutcome::Closed)
        return closedBefore(known);
    // A channel whose record says "failed" is asked to close it, like any refusal.
    return finalRefusal(channel, operation, known);
}

Result<ChannelResult> callChannel(Channel &channel, const ChannelRequest &request,
                                  EarlierAttempt earlier)
{
    if (earlier == EarlierAttempt::Possible) {
        Result<ChannelResult> known = askChannel(channel, request);
        if (!known || known->outcome != ChannelOutcome::NotFound)
            return known;
    }
    ChannelRequest sent = request;
    sent.firstAttempt = earlier == EarlierAttempt::None;
    ChannelResult answer = closedBefore(channel.execute(sent));
    // "Never received" answers a query, not a request that was just sent.
    if (answer.outcome == ChannelOutcome::NotFound)
        answer = {ChannelOutcome::Unknown, {}, answer.message};
    return finalRefusal(channel, sent, answer);
}

} // namespace keel
