#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"

#include <QStringList>

#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace keel {

class NotifyWakeup;
class LibpqConnection;

struct WakeupLoopOptions {
    ConnectionSettings settings;
    QStringList channels; // LISTENed to: a NOTIFY on one runs a pass at once
    int threads = 1;      // each with its own connection
    int pollMs = 1000;    // the fallback when no NOTIFY arrives
    QString task;         // how its failures are named in the log
    // One pass over what is due; true if it did any work (then it runs again
    // at once), an error when the database failed it.
    std::function<Result<bool>(LibpqConnection &)> pass;
};

// Background work in a keel process that runs when the database announces
// it (NOTIFY) or at the latest every pollMs; a lost database costs pauses
// growing to 30 s, then it carries on from the tables.
class WakeupLoop final {
public:
    static std::unique_ptr<WakeupLoop> start(WakeupLoopOptions options);
    ~WakeupLoop();
    Q_DISABLE_COPY_MOVE(WakeupLoop)

    void stop();
    bool listening() const;

private:
    WakeupLoop() = default;
    void run();

    WakeupLoopOptions m_options;
    std::unique_ptr<NotifyWakeup> m_wakeup;
    std::vector<std::thread> m_threads;
};

} // namespace keel
