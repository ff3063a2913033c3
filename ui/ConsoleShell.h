#pragma once

#include <QObject>

namespace keel {

class ConsoleSettings;
class LiveFeed;
class MainWindow;
class QueryWorker;

// Owns the console's main window and builds it afresh when the language or
// theme changes, so the choice applies at once: widgets take their strings
// and chart colours when they are made. The connections and settings stay.
class ConsoleShell final : public QObject {
    Q_OBJECT

public:
    ConsoleShell(QueryWorker *primary, QueryWorker *reads, ConsoleSettings *settings,
                 LiveFeed *live = nullptr, QObject *parent = nullptr);
    ~ConsoleShell() override;

    MainWindow *window() const { return m_window; }

    // Remembers and applies the choice, then replaces the window, keeping its
    // place on screen and the view it showed.
    void applyAppearance(const QString &language, const QString &theme);

Q_SIGNALS:
    void windowReplaced(); // window() is the new one
    void connectRequested();

private:
    MainWindow *build();

    QueryWorker *m_primary;
    QueryWorker *m_reads;
    ConsoleSettings *m_settings;
    LiveFeed *m_live;
    MainWindow *m_window = nullptr;
};

} // namespace keel
