#pragma once

#include "core/Result.h"

#include <QSqlDatabase>

namespace keel {

struct SessionInfo;

// The numbers that need a person now, for the console's headline: each is
// -1 when the login may not read what it counts.
struct AttentionCounts {
    qint64 stuckSagas = -1;
    qint64 parkedMessages = -1;      // outbox rows the relay gave up on, not resent
    qint64 parkedNotifications = -1; // merchant notifications that gave up, not resent
    qint64 overdueCases = -1;        // open suspense cases past ops_policy.case_deadline
    qint64 channelNotices = -1;      // open cases a channel's notice opened (kept for a person)
    qint64 waitingProposals = -1;    // proposals nobody has decided yet
    qint64 reconBreaks =
        -1; // reconciliation breaks new or persisting (pending ones wait for the channel)
};

// What each count needs the login to read.
struct AttentionScope {
    bool sagas = false;
    bool outbox = false;
    bool notifications = false;
    bool cases = false;
    bool proposals = false;
    bool reconciliation = false;

    static AttentionScope of(const SessionInfo &session);
};

class Attention final {
public:
    Attention() = delete;
    static Result<AttentionCounts> load(QSqlDatabase db, const AttentionScope &scope);
};

} // namespace keel
