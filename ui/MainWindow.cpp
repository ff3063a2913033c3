#include "ui/MainWindow.h"

#include "core/read/HistoryQuery.h"
#include "ui/ApprovalsView.h"
#include "ui/AttentionBar.h"
#include "ui/AuditView.h"
#include "ui/ConsoleSettings.h"
#include "ui/HistoryView.h"
#include "ui/LiveFeed.h"
#include "ui/MessageBanner.h"
#include "ui/OperationsPanel.h"
#include "ui/OutboxView.h"
#include "ui/OverviewView.h"
#include "ui/QueryWorker.h"
#include "ui/ReconView.h"
#include "ui/ReplicaLagLabel.h"
#include "ui/SagasView.h"
#include "ui/SuspenseView.h"

#include <QActionGroup>
#include <QCheckBox>
#include <QCloseEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QStackedWidget>
#include <QStatusBar>

namespace keel {

namespace {

const QStringList &viewNames()
{
    static const QStringList names{QStringLiteral("overview"), QStringLiteral("history"),
                                   QStringLiteral("sagas"),    QStringLiteral("suspense"),
                                   QStringLiteral("outbox"),   QStringLiteral("approvals"),
                                   QStringLiteral("audit"),    QStringLiteral("recon")};
    return names;
}

} // namespace

MainWindow::MainWindow(QueryWorker *primary, QueryWorker *reads, ConsoleSettings *settings,
                       LiveFeed *live, QWidget *parent)
    : QMainWindow(parent), m_worker(primary), m_settings(settings),
      m_banner(new MessageBanner(this)), m_navigation(new QListWidget(this)),
      m_views(new QStackedWidget(this)), m_overview(new OverviewView(reads, this)),
      m_attention(new AttentionBar(primary, this)),
      m_operations(new OperationsPanel(primary, this)), m_history(new HistoryView(reads, this)),
      m_sagas(new SagasView(primary, this)), m_suspense(new SuspenseView(primary, this)),
      m_outbox(new OutboxView(primary, this)), m_approvals(new ApprovalsView(primary, this)),
      m_audit(new AuditView(primary, this)), m_recon(new ReconView(primary, this)),
      m_identity(new QLabel(this))
{
    setWindowTitle(tr("keel console"));
    buildLayout();
    connect(m_history, &HistoryView::failed, this, [this](const QString &message) {
        m_banner->showMessage(tr("Payment history: %1").arg(message), MessageBanner::Kind::Error);
    });
    connectGuardedActions();
    buildMenus();
    connectOverview(live);
    connectWorkers(primary, reads);

    m_overview->setRangeSeconds(m_settings->overviewRangeSeconds());
    if (!restoreGeometry(m_settings->windowGeometry())) {
        // Room for every Overview chart where the screen allows it.
        const QSize room = screen() ? screen()->availableSize() * 0.92 : QSize(1280, 1000);
        resize(std::min(1280, room.width()), std::min(1000, room.height()));
    }
    // Views start once the session's grants are known.
    loadSession();
}

void MainWindow::buildLayout()
{
    auto *central = new QWidget(this);
    auto *outer = new QVBoxLayout(central);
    outer->addWidget(m_banner);
    outer->addWidget(m_attention);
    m_overview->addPanel(m_operations);
    auto *body = new QHBoxLayout;
    m_navigation->setAccessibleName(tr("Views"));
    m_navigation->setMaximumWidth(170);
    const std::pair<QString, QWidget *> views[] = {
        {tr("Overview"), m_overview}, {tr("Payment history"), m_history},
        {tr("Sagas"), m_sagas},       {tr("Suspense cases"), m_suspense},
        {tr("Outbox"), m_outbox},     {tr("Approvals"), m_approvals},
        {tr("Audit trail"), m_audit}, {tr("Reconciliation"), m_recon}};
    for (const auto &[name, view] : views) {
        m_navigation->addItem(name);
        m_views->addWidget(view);
    }
    body->addWidget(m_navigation);
    body->addWidget(m_views, 1);
    outer->addLayout(body, 1);
    setCentralWidget(central);
    statusBar()->addPermanentWidget(m_identity);
    m_navigation->setCurrentRow(0);
    connect(m_navigation, &QListWidget::currentRowChanged, m_views,
            &QStackedWidget::setCurrentIndex);
}

void MainWindow::connectOverview(LiveFeed *live)
{
    connect(m_overview, &OverviewView::refreshFailed, this, [this](const QString &message) {
        m_refreshFailureShown = true;
        m_banner->showMessage(tr("The dashboard could not be refreshed: %1").arg(message),
                              MessageBanner::Kind::Error);
    });
    connect(m_overview, &OverviewView::refreshed, this, [this] {
        if (m_refreshFailureShown)
            m_banner->hide();
        m_refreshFailureShown = false;
    });
    connect(m_overview, &OverviewView::rangeChanged, this,
            [this](qint64 seconds) { m_settings->setOverviewRangeSeconds(seconds); });
    if (live) {
        connect(live, &LiveFeed::metricsChanged, m_overview, &OverviewView::refreshSoon);
        connect(live, &LiveFeed::listeningChanged, m_overview, &OverviewView::setLiveUpdates);
        m_overview->setLiveUpdates(live->listening());
    }
}

void MainWindow::connectWorkers(QueryWorker *primary, QueryWorker *reads)
{
    if (reads != primary) {
        m_replicaLag = new ReplicaLagLabel(primary, reads, this);
        statusBar()->addPermanentWidget(m_replicaLag);
        connect(reads, &QueryWorker::connectionChanged, this,
                [this](bool connected, const QString &message) {
                    if (connected)
                        m_banner->hide();
                    else
                        m_banner->showMessage(
                            tr("The read replica is unreachable: %1. keel keeps retrying.")
                                .arg(message),
                            MessageBanner::Kind::Error);
                });
    }
    connect(primary, &QueryWorker::connectionChanged, this,
            [this](bool connected, const QString &message) {
                if (connected) {
                    m_banner->hide();
                    loadSession();
                } else {
                    m_banner->showMessage(
                        tr("Connection lost: %1. keel keeps retrying.").arg(message),
                        MessageBanner::Kind::Error);
                    m_identity->setText(tr("not connected"));
                }
            });
}

void MainWindow::buildMenus()
{
    QMenu *connection = menuBar()->addMenu(tr("&Connection"));
    QAction *reconnect =
        connection->addAction(tr("&Connect to…"), this, &MainWindow::connectRequested);
    reconnect->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    connection->addSeparator();
    QAction *quit = connection->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    QMenu *view = menuBar()->addMenu(tr("&View"));
    // Ctrl+1.. move between views, Ctrl+F jumps to the history search, F5 refreshes.
    QAction *toOverview =
        view->addAction(tr("&Overview"), this, [this] { showView(QStringLiteral("overview")); });
    toOverview->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    QAction *toHistory = view->addAction(tr("Payment &history"), this,
                                         [this] { showView(QStringLiteral("history")); });
    toHistory->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));
    const std::pair<QString, QString> guarded[] = {
        {tr("&Sagas"), QStringLiteral("sagas")},
        {tr("Suspense &cases"), QStringLiteral("suspense")},
        {tr("O&utbox"), QStringLiteral("outbox")},
        {tr("A&pprovals"), QStringLiteral("approvals")},
        {tr("&Audit trail"), QStringLiteral("audit")},
        {tr("&Reconciliation"), QStringLiteral("recon")}};
    int key = Qt::Key_3;
    for (const auto &[label, name] : guarded) {
        QAction *to = view->addAction(label, this, [this, name] { showView(name); });
        to->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(key++)));
    }
    QAction *find = view->addAction(tr("&Find a payment"), this, [this] {
        if (showView(QStringLiteral("history")))
            m_history->searchField()->setFocus();
    });
    find->setShortcut(QKeySequence::Find);
    QAction *refresh = view->addAction(tr("&Refresh"), m_overview, &OverviewView::refresh);
    refresh->setShortcut(QKeySequence::Refresh);
    view->addSeparator();

    // Languages are named in themselves, so anyone can find their own.
    QMenu *language = view->addMenu(tr("&Language"));
    auto *languages = new QActionGroup(this);
    const std::pair<QString, QString> choices[] = {
        {tr("System default"), QString()},
        {QStringLiteral("English"), QStringLiteral("en")},
        {QString::fromUtf8("简体中文"), QStringLiteral("zh_CN")}};
    for (const auto &[label, code] : choices) {
        QAction *action = language->addAction(label);
        action->setCheckable(true);
        action->setChecked(m_settings->language() == code);
        action->setData(code);
        languages->addAction(action);
        connect(action, &QAction::triggered, this,
                [this, code] { Q_EMIT appearanceRequested(code, m_settings->theme()); });
    }
    QMenu *theme = view->addMenu(tr("&Theme"));
    auto *themes = new QActionGroup(this);
    const std::pair<QString, QString> palettes[] = {{tr("Light"), QStringLiteral("light")},
                                                    {tr("Dark"), QStringLiteral("dark")}};
    for (const auto &[label, code] : palettes) {
        QAction *action = theme->addAction(label);
        action->setCheckable(true);
        action->setChecked(m_settings->theme() == code);
        themes->addAction(action);
        connect(action, &QAction::triggered, this,
                [this, code] { Q_EMIT appearanceRequested(m_settings->language(), code); });
    }
}

QString MainWindow::currentView() const
{
    return viewNames().value(m_navigation->currentRow());
}

bool MainWindow::showView(const QString &name)
{
    const int row = int(viewNames().indexOf(name));
    if (row < 0)
        return false;
    m_wantedView = name;
    if (!viewEnabled(name))
        return false;
    m_navigation->setCurrentRow(row);
    return true;
}

bool MainWindow::viewEnabled(const QString &name) const
{
    const int row = int(viewNames().indexOf(name));
    return row >= 0 && (m_navigation->item(row)->flags() & Qt::ItemIsEnabled);
}

void MainWindow::applyAccess()
{
    const std::pair<bool, QString> access[] = {
        {m_session.canSeeDashboards(), tr("Needs read access to keel.metrics_minute (any keel "
                                          "role but the gateway's).")},
        {m_session.canSeeHistory(), tr("Needs read access to keel.charges: keel_auditor, "
                                       "keel_operator or keel_approver.")},
        {m_session.canRead(QStringLiteral("sagas")) &&
             m_session.canRead(QStringLiteral("saga_steps")) &&
             m_session.canRead(QStringLiteral("saga_events")),
         tr("Needs read access to keel.sagas, saga_steps and saga_events (any keel role but the "
            "gateway's).")},
        {m_session.canRead(QStringLiteral("suspense_cases")),
         tr("Needs read access to keel.suspense_cases (any keel role but the gateway's).")},
        {m_session.canRead(QStringLiteral("outbox")),
         tr("Needs read access to keel.outbox: keel_sre, keel_operator, keel_approver or "
            "keel_auditor.")},
        {m_session.canRead(QStringLiteral("operator_actions")),
         tr("Needs read access to keel.operator_actions (any keel role but the gateway's).")},
        {m_session.canRead(QStringLiteral("audit_log")),
         tr("Needs read access to keel.audit_log (any keel role but the gateway's).")},
        {m_session.canRead(QStringLiteral("recon_breaks")),
         tr("Needs read access to keel.recon_breaks: keel_operator, keel_approver or "
            "keel_auditor.")}};
    for (int row = 0; row < m_navigation->count(); ++row) {
        QListWidgetItem *item = m_navigation->item(row);
        const auto &[allowed, why] = access[row];
        item->setFlags(allowed ? item->flags() | Qt::ItemIsEnabled
                               : item->flags() & ~Qt::ItemIsEnabled);
        item->setToolTip(allowed ? QString() : why);
    }
    m_overview->setScope({m_session.canSeeSuspense(), m_session.canSeeInFlight(),
                          m_session.canRead(QStringLiteral("payment_state_minute")),
                          m_session.canRead(QStringLiteral("recon_breaks")),
                          m_session.canRead(QStringLiteral("suspense_cases"))});
    m_history->setTimelineSources(HistoryQuery::timelineSourcesFor(m_session));
    m_attention->setScope(AttentionScope::of(m_session));
    m_operations->setScope(AttentionScope::of(m_session));
    m_outbox->setCanPropose(m_session.canProposeActions());
    m_sagas->setAccess(m_session.canProposeActions(),
                       m_session.holds(QStringLiteral("keel_operator")));
    m_suspense->setAccess(m_session.holds(QStringLiteral("keel_operator")),
                          m_session.holds(QStringLiteral("keel_operator")) ||
                              m_session.holds(QStringLiteral("keel_approver")),
                          HistoryQuery::timelineSourcesFor(m_session));
    m_approvals->setAccess(m_session.canApproveActions(),
                           m_session.canProposeActions() || m_session.canApproveActions());
    if (!m_accessApplied) {
        refreshOperationsLists();
        if (m_session.canRead(QStringLiteral("operator_actions")))
            m_approvals->refresh();
        if (m_session.canRead(QStringLiteral("audit_log")))
            m_audit->search();
    }
    if (!m_accessApplied && m_session.canSeeDashboards()) {
        m_overview->refresh();
        m_overview->startPolling();
    }
    m_accessApplied = true;
    // Stay on (or move to) a view this session may see.
    const QString wanted =
        m_wantedView.isEmpty() ? viewNames().at(m_navigation->currentRow()) : m_wantedView;
    if (viewEnabled(wanted)) {
        m_navigation->setCurrentRow(int(viewNames().indexOf(wanted)));
        return;
    }
    for (const QString &name : viewNames())
        if (viewEnabled(name)) {
            m_navigation->setCurrentRow(int(viewNames().indexOf(name)));
            return;
        }
}

void MainWindow::openFromHeadline(const QString &view)
{
    if (view == QLatin1String("sagas")) {
        m_sagas->stuckOnly()->setChecked(true);
        m_sagas->search();
    } else if (view == QLatin1String("suspense")) {
        m_suspense->overdueOnly()->setChecked(true); // refreshes the queue
    } else if (view == QLatin1String("notices")) {
        m_suspense->noticesOnly()->setChecked(true);
        showView(QStringLiteral("suspense"));
        return;
    }
    showView(view);
}

void MainWindow::connectGuardedActions()
{
    connect(m_attention, &AttentionBar::openRequested, this, &MainWindow::openFromHeadline);
    connect(m_outbox, &OutboxView::failed, this, [this](const QString &message) {
        m_banner->showMessage(tr("Outbox: %1").arg(message), MessageBanner::Kind::Error);
    });
    connect(m_recon, &ReconView::failed, this, [this](const QString &message) {
        m_banner->showMessage(tr("Reconciliation: %1").arg(message), MessageBanner::Kind::Error);
    });
    connect(m_audit, &AuditView::failed, this, [this](const QString &message) {
        m_banner->showMessage(tr("Audit trail: %1").arg(message), MessageBanner::Kind::Error);
    });
    connect(m_sagas, &SagasView::failed, this, [this](const QString &message) {
        m_banner->showMessage(tr("Sagas: %1").arg(message), MessageBanner::Kind::Error);
    });
    const auto announce = [this](const ActionRecord &record) {
        m_banner->showMessage(tr("Proposal #%1 (%2) waits for a second person to approve it.")
                                  .arg(record.id)
                                  .arg(record.kind),
                              MessageBanner::Kind::Information);
        m_approvals->refresh();
        m_attention->refresh();
        m_audit->search();
    };
    connect(m_outbox, &OutboxView::proposed, this, announce);
    connect(m_sagas, &SagasView::proposed, this, announce);
    connect(m_suspense, &SuspenseView::proposed, this, announce);
    connect(m_recon, &ReconView::proposed, this, announce);
    connect(m_suspense, &SuspenseView::failed, this, [this](const QString &message) {
        m_banner->showMessage(tr("Suspense cases: %1").arg(message), MessageBanner::Kind::Error);
    });
    connect(m_approvals, &ApprovalsView::acted, this, [this](bool ok, const QString &message) {
        m_banner->showMessage(message,
                              ok ? MessageBanner::Kind::Information : MessageBanner::Kind::Error);
        refreshOperationsLists();
        m_attention->refresh();
        m_audit->search();
    });
}

void MainWindow::loadSession()
{
    m_worker->submit<SessionInfo>(
        this, [](QSqlDatabase db) { return SessionInfo::load(db); },
        [this](const Result<SessionInfo> &result) {
            if (!result) {
                m_banner->showMessage(result.error().message, MessageBanner::Kind::Error);
                return;
            }
            m_session = *result;
            showSession();
            applyAccess();
            Q_EMIT sessionLoaded();
        });
}

void MainWindow::showSession()
{
    const QString roles = m_session.superuser ? tr("superuser")
                          : m_session.keelRoles.isEmpty()
                              ? tr("no keel role")
                              : m_session.keelRoles.join(QStringLiteral(", "));
    m_identity->setText(tr("%1 on %2 · %3 · schema v%4")
                            .arg(m_session.user, m_session.database, roles)
                            .arg(m_session.schemaVersion));
    if (!m_session.superuser && m_session.keelRoles.isEmpty())
        m_banner->showMessage(tr("%1 holds no keel role, so most of keel is hidden from it; ask an "
                                 "administrator to grant keel_auditor, keel_operator or keel_sre.")
                                  .arg(m_session.user),
                              MessageBanner::Kind::Warning);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    m_settings->setWindowGeometry(saveGeometry());
    event->accept();
}

void MainWindow::refreshOperationsLists()
{
    if (m_session.canRead(QStringLiteral("outbox")))
        m_outbox->refresh();
    if (viewEnabled(QStringLiteral("sagas")))
        m_sagas->search();
    if (viewEnabled(QStringLiteral("suspense")))
        m_suspense->refresh();
    if (viewEnabled(QStringLiteral("recon")))
        m_recon->refresh();
}

} // namespace keel
