#include "core/payment/Channel.h"

namespace keel {

QString channelOutcomeName(ChannelOutcome outcome)
{
    switch (outcome) {
    case ChannelOutcome::Approved:
        return QStringLiteral("approved");
    case ChannelOutcome::Declined:
        return QStringLiteral("declined");
    case ChannelOutcome::Failed:
        return QStringLiteral("failed");
    case ChannelOutcome::NotFound:
        return QStringLiteral("not_found");
    case ChannelOutcome::Closed:
        return QStringLiteral("closed");
    case ChannelOutcome::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

ChannelOutcome channelOutcomeNamed(QStringView name)
{
    for (const ChannelOutcome outcome :
         {ChannelOutcome::Approved, ChannelOutcome::Declined, ChannelOutcome::Failed,
          ChannelOutcome::NotFound, ChannelOutcome::Closed})
        if (channelOutcomeName(outcome) == name)
            return outcome;
    return ChannelOutcome::Unknown;
}

} // namespace keel
