#pragma once

#include "core/db/ConnectionSettings.h"

#include <QStringList>

#include <atomic>
#include <functional>
#include <thread>

struct pg_conn;

namespace keel {

// Listens for PostgreSQL notifications on its own connection and thread, and
// reconnects after a drop. keel processes NOTIFY after writing rollups, so a
// console learns about new numbers at once instead of at its next poll.
class ChangeListener final {
public:
    struct Callbacks {
        std::function<void(const QString &channel, const QString &payload)> notified;
        // true once LISTEN is in place; false (with why) when the connection is lost.
        std::function<void(bool listening, const QString &message)> stateChanged;
    };

    ChangeListener(ConnectionSettings settings, QStringList channels, Callbacks callbacks);
    ~ChangeListener(); // stops and joins

    ChangeListener(const ChangeListener &) = delete;
    ChangeListener &operator=(const ChangeListener &) = delete;

    void start();
    void stop();

    // The channel the rollup writers notify.
    static QString metricsChannel() { return QStringLiteral("keel_metrics"); }

private:
    void run();
    // Waits on the connection's socket and the stop pipe; false once stopping.
    bool listenUntilDropped(pg_conn *conn);
    void pause(int milliseconds);

    ConnectionSettings m_settings;
    QStringList m_channels;
    Callbacks m_callbacks;
    std::atomic<bool> m_stopping{false};
    int m_wake[2] = {-1, -1}; // a pipe: writing to it interrupts the wait
    std::thread m_thread;
};

} // namespace keel
