#pragma once

#include "core/db/SessionInfo.h"

#include <QMainWindow>

class QLabel;
class QListWidget;
class QStackedWidget;

namespace keel {

class ConsoleSettings;
class HistoryView;
class MessageBanner;
class OverviewView;
class QueryWorker;

// The console's frame: navigation on the left, the current view, an inline
// message banner, and who the console is connected as. Views plug into the
// stack; each reads through keel_core on the query worker.
class MainWindow final : public QMainWindow {
    Q_OBJECT

public:
    MainWindow(QueryWorker *worker, ConsoleSettings *settings, QWidget *parent = nullptr);

    OverviewView *overview() const { return m_overview; }
    HistoryView *history() const { return m_history; }
    // Shows a view by name (overview, history); false if there is no such view.
    bool showView(const QString &name);
    MessageBanner *banner() const { return m_banner; }
    const SessionInfo &session() const { return m_session; }

Q_SIGNALS:
    void sessionLoaded();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void loadSession();
    void showSession();

    QueryWorker *m_worker;
    ConsoleSettings *m_settings;
    MessageBanner *m_banner;
    QListWidget *m_navigation;
    QStackedWidget *m_views;
    OverviewView *m_overview;
    HistoryView *m_history;
    QLabel *m_identity;
    SessionInfo m_session;
    bool m_refreshFailureShown = false;
};

} // namespace keel
