#include "ui/MainWindow.h"

#include "ui/ConsoleSettings.h"
#include "ui/HistoryView.h"
#include "ui/MessageBanner.h"
#include "ui/OverviewView.h"
#include "ui/QueryWorker.h"

#include <QCloseEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QShortcut>
#include <QStackedWidget>
#include <QStatusBar>

namespace keel {

MainWindow::MainWindow(QueryWorker *worker, ConsoleSettings *settings, QWidget *parent)
    : QMainWindow(parent), m_worker(worker), m_settings(settings),
      m_banner(new MessageBanner(this)), m_navigation(new QListWidget(this)),
      m_views(new QStackedWidget(this)), m_overview(new OverviewView(worker, this)),
      m_history(new HistoryView(worker, this)), m_identity(new QLabel(this))
{
    setWindowTitle(tr("keel console"));
    auto *central = new QWidget(this);
    auto *outer = new QVBoxLayout(central);
    outer->addWidget(m_banner);
    auto *body = new QHBoxLayout;
    m_navigation->setAccessibleName(tr("Views"));
    m_navigation->setMaximumWidth(170);
    m_navigation->addItem(tr("Overview"));
    m_navigation->addItem(tr("Payment history"));
    m_views->addWidget(m_overview);
    m_views->addWidget(m_history);
    body->addWidget(m_navigation);
    body->addWidget(m_views, 1);
    outer->addLayout(body, 1);
    setCentralWidget(central);
    statusBar()->addPermanentWidget(m_identity);
    m_navigation->setCurrentRow(0);
    connect(m_navigation, &QListWidget::currentRowChanged, m_views,
            &QStackedWidget::setCurrentIndex);

    // Ctrl+1.. move between views, F5 refreshes the current one.
    auto *toOverview = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_1), this);
    connect(toOverview, &QShortcut::activated, this, [this] { m_navigation->setCurrentRow(0); });
    auto *toHistory = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_2), this);
    connect(toHistory, &QShortcut::activated, this, [this] { m_navigation->setCurrentRow(1); });
    // Ctrl+F jumps to the history search.
    auto *find = new QShortcut(QKeySequence::Find, this);
    connect(find, &QShortcut::activated, this, [this] {
        m_navigation->setCurrentRow(1);
        m_history->searchField()->setFocus();
    });
    connect(m_history, &HistoryView::failed, this, [this](const QString &message) {
        m_banner->showMessage(tr("Payment history: %1").arg(message), MessageBanner::Kind::Error);
    });
    auto *refresh = new QShortcut(QKeySequence::Refresh, this);
    connect(refresh, &QShortcut::activated, m_overview, &OverviewView::refresh);

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
    connect(m_worker, &QueryWorker::connectionChanged, this,
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

    m_overview->setRangeSeconds(m_settings->overviewRangeSeconds());
    if (!restoreGeometry(m_settings->windowGeometry()))
        resize(1200, 760);
    loadSession();
    m_overview->refresh();
}

bool MainWindow::showView(const QString &name)
{
    const QStringList names{QStringLiteral("overview"), QStringLiteral("history")};
    const int row = int(names.indexOf(name));
    if (row < 0)
        return false;
    m_navigation->setCurrentRow(row);
    return true;
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

} // namespace keel
