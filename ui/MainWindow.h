#pragma once

#include "core/db/SessionInfo.h"

#include <QMainWindow>

class QLabel;
class QListWidget;
class QStackedWidget;

namespace keel {

class ApprovalsView;
class AttentionBar;
class AuditView;
class ReconView;
class OutboxView;
class SagasView;
class SuspenseView;
class ConsoleSettings;
class HistoryView;
class LiveFeed;
class MessageBanner;
class OperationsPanel;
class OverviewView;
class ReplicaLagLabel;
class QueryWorker;

// The console's frame: navigation on the left, the current view, an inline
// message banner, and who the console is connected as. Views plug into the
// stack; each reads through keel_core on the query worker.
class MainWindow final : public QMainWindow {
    Q_OBJECT

public:
    // `reads` serves the dashboards and history (a read replica, or the primary
    // again); `primary` answers who the console is. `live` (optional) brings
    // change notifications.
    MainWindow(QueryWorker *primary, QueryWorker *reads, ConsoleSettings *settings,
               LiveFeed *live = nullptr, QWidget *parent = nullptr);
    MainWindow(QueryWorker *worker, ConsoleSettings *settings, QWidget *parent = nullptr)
        : MainWindow(worker, worker, settings, nullptr, parent)
    {}

    OverviewView *overview() const { return m_overview; }
    AttentionBar *attention() const { return m_attention; }
    OperationsPanel *operations() const { return m_operations; }
    HistoryView *history() const { return m_history; }
    SagasView *sagas() const { return m_sagas; }
    SuspenseView *suspense() const { return m_suspense; }
    OutboxView *outbox() const { return m_outbox; }
    ApprovalsView *approvals() const { return m_approvals; }
    AuditView *audit() const { return m_audit; }
    ReconView *recon() const { return m_recon; }
    // How far the read replica trails; null when the console reads the primary.
    ReplicaLagLabel *replicaLag() const { return m_replicaLag; }
    // Shows a view by name (overview, history, sagas, suspense, outbox,
    // approvals, audit); false if there is no such view or this connection may
    // not see it.
    bool showView(const QString &name);
    bool viewEnabled(const QString &name) const;
    QString currentView() const;
    MessageBanner *banner() const { return m_banner; }
    const SessionInfo &session() const { return m_session; }

Q_SIGNALS:
    void sessionLoaded();
    // The user picked a language or theme from the View menu.
    void appearanceRequested(const QString &language, const QString &theme);
    // The user wants to connect to another database (the connection dialog).
    void connectRequested();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    // The outbox, sagas and suspense lists, those this session may read.
    void refreshOperationsLists();
    void buildLayout();
    void buildMenus();
    void connectOverview(LiveFeed *live);
    void connectWorkers(QueryWorker *primary, QueryWorker *reads);
    void loadSession();
    void showSession();
    // Enables what the session's grants allow; the database enforces it anyway.
    void applyAccess();
    void connectGuardedActions();
    void openFromHeadline(const QString &view);

    QueryWorker *m_worker;
    ConsoleSettings *m_settings;
    MessageBanner *m_banner;
    QListWidget *m_navigation;
    QStackedWidget *m_views;
    OverviewView *m_overview;
    AttentionBar *m_attention;
    OperationsPanel *m_operations;
    HistoryView *m_history;
    SagasView *m_sagas;
    SuspenseView *m_suspense;
    OutboxView *m_outbox;
    ApprovalsView *m_approvals;
    AuditView *m_audit;
    ReconView *m_recon;
    QLabel *m_identity;
    ReplicaLagLabel *m_replicaLag = nullptr;
    SessionInfo m_session;
    QString m_wantedView;
    bool m_refreshFailureShown = false;
    bool m_accessApplied = false;
};

} // namespace keel
