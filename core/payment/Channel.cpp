#include "core/payment/Channel.h"

#include <algorithm>

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

bool keepableChannelReference(const QString &reference)
{
    constexpr qsizetype Longest = 128;
    if (reference.isEmpty() || reference.size() > Longest)
        return false;
    return std::none_of(reference.cbegin(), reference.cend(),
                        [](QChar c) { return c.category() == QChar::Other_Control; });
}

} // namespace keel
