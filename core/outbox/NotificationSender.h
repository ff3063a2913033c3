#pragma once

#include "core/Result.h"

#include <QList>
#include <QString>

namespace keel {

class LibpqConnection;

struct NotificationOptions {
    // Pauses after each failed attempt: minutes, then hours, about three
    // days in all (Stripe's schedule is "up to three days"); the attempt
    // after the last pause that fails parks the notification.
    QList<int> retryDelaysSeconds{60,    300,   900,   3600,  10800, 21600,
                                  43200, 43200, 43200, 43200, 43200};
    int timeoutMs = 10000; // per POST
    int batch = 16;        // notifications claimed per pass
};

struct NotificationPass {
    int delivered = 0;
    int failed = 0; // retried later
    int parked = 0;
};

// Delivers merchant notifications (written beside their events' outbox rows)
// as HTTP POSTs signed in Stripe's webhook scheme with the merchant's secret
// (and its previous one while that is still live), so a merchant verifies
// them with any Stripe library. Retries on a growing schedule until a 2xx;
// the last failure parks the notification for a person to resend. Every
// attempt is recorded with its status, latency and the answer's first 200
// characters. Several senders share the table: a claim is a lease.
class NotificationSender final {
public:
    NotificationSender(LibpqConnection &connection, NotificationOptions options);

    Result<NotificationPass> runOnce();

    static QString channel() { return QStringLiteral("keel_notifications"); }

private:
    struct Claimed;
    struct Answer;
    Answer post(const Claimed &notification) const;
    Status record(const Claimed &notification, const Answer &answer, NotificationPass &pass);

    LibpqConnection &m_connection;
    NotificationOptions m_options;
};

} // namespace keel
