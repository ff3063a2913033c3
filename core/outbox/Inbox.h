#pragma once

#include "core/Result.h"

#include <QString>

#include <functional>

namespace keel {

class LibpqConnection;

// The consumer's side of at-least-once delivery: a message's effect and the
// record that `consumer` has seen `messageId` commit in one transaction (the
// consumer's own), so a message delivered again — after a crash between the
// effect and the ack, or a relay that published a window twice — changes
// nothing the second time. Ack the broker only after process() returns.
class Inbox final {
public:
    explicit Inbox(LibpqConnection &connection) : m_connection(connection) {}

    enum class Outcome { Applied, Duplicate };

    // Runs `effect` and records the message in one transaction; a message
    // already recorded for `consumer` is not run again. An error from
    // `effect` rolls both back, so the message can be processed later.
    Result<Outcome> process(const QString &consumer, const QString &messageId,
                            const std::function<Status(LibpqConnection &)> &effect);
    // Inside a transaction the caller owns: true if the message is new (and
    // is now recorded), false if it was processed before.
    Result<bool> claim(const QString &consumer, const QString &messageId);
    // Forgets messages recorded more than `keepSeconds` ago, at most `batch`.
    Result<int> sweep(int keepSeconds, int batch = 1000);

private:
    LibpqConnection &m_connection;
};

} // namespace keel
