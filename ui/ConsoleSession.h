#pragma once

#include "core/db/ConnectionSettings.h"

#include <QObject>

#include <memory>
#include <optional>

namespace keel {

class ConsoleSettings;
class ConsoleShell;
class LiveFeed;
class MainWindow;
class QueryWorker;

// Everything the console holds for one connection: its database threads
// (primary, and the replica's if there is one), the change feed, and the
// window. Connecting elsewhere replaces the whole session.
class ConsoleSession final : public QObject {
    Q_OBJECT

public:
    ConsoleSession(const ConnectionSettings &primary,
                   const std::optional<ConnectionSettings> &replica, ConsoleSettings *settings,
                   QObject *parent = nullptr);
    ~ConsoleSession() override; // stops the threads

    MainWindow *window() const;

Q_SIGNALS:
    // The user asked (View ▸ Connect to…) to connect elsewhere.
    void connectRequested();

private:
    std::unique_ptr<QueryWorker> m_primary;
    std::unique_ptr<QueryWorker> m_replica;
    std::unique_ptr<LiveFeed> m_live;
    std::unique_ptr<ConsoleShell> m_shell;
};

} // namespace keel
