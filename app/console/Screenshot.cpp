#include "Screenshot.h"

#include "ui/ApprovalsView.h"
#include "ui/AuditView.h"
#include "ui/HistoryModel.h"
#include "ui/HistoryView.h"
#include "ui/MainWindow.h"
#include "ui/OutboxView.h"
#include "ui/OverviewView.h"
#include "ui/ReconView.h"
#include "ui/SagasView.h"
#include "ui/SuspenseView.h"

#include <QApplication>
#include <QComboBox>
#include <QTableWidget>
#include <QTimer>

#include <cstdio>

namespace keel {

Screenshot::Screenshot(MainWindow &window, QString view, QString file, bool awaitTraffic,
                       qint64 minimumWaitMs)
    : QObject(&window), m_window(window), m_view(std::move(view)), m_file(std::move(file)),
      m_awaitTraffic(awaitTraffic), m_minimumWaitMs(minimumWaitMs)
{
    m_waited.start();
    connect(window.overview(), &OverviewView::refreshed, this,
            &Screenshot::handleOverviewRefreshed);
    connect(window.overview(), &OverviewView::refreshFailed, this, [](const QString &message) {
        std::fprintf(stderr, "keel-console: %s\n", qPrintable(message));
        QApplication::exit(3);
    });
}

bool Screenshot::overviewReady() const
{
    const OverviewData &data = m_window.overview()->data();
    bool hasTraffic = false;
    for (const qint64 value : data.series(QStringLiteral("idempotency.new")))
        hasTraffic = hasTraffic || value > 0;
    // Payments by state appear once housekeeping has folded the first events.
    hasTraffic = hasTraffic && !data.stateLevels.isEmpty();
    return (!m_awaitTraffic || hasTraffic || m_waited.elapsed() >= 40000) &&
           m_waited.elapsed() >= m_minimumWaitMs;
}

void Screenshot::handleOverviewRefreshed()
{
    if (!overviewReady()) {
        QTimer::singleShot(1500, m_window.overview(), &OverviewView::refresh);
        return;
    }
    disconnect(m_window.overview(), &OverviewView::refreshed, this, nullptr);
    if (m_view == QLatin1String("history"))
        openHistoryThenShoot();
    else if (m_view == QLatin1String("audit"))
        verifyAuditThenShoot();
    else if (m_view == QLatin1String("sagas")) {
        SagasView *sagas = m_window.sagas();
        connect(
            sagas, &SagasView::listed, this,
            [sagas](int rows) {
                if (rows > 0)
                    sagas->selectSaga(0); // stuck ones come first
            },
            Qt::SingleShotConnection);
        connect(sagas, &SagasView::sagaShown, this, &Screenshot::shoot, Qt::SingleShotConnection);
        sagas->search();
    } else if (m_view == QLatin1String("suspense")) {
        SuspenseView *suspense = m_window.suspense();
        connect(
            suspense, &SuspenseView::listed, this,
            [suspense](int rows) {
                if (rows > 0)
                    suspense->selectCase(0); // the oldest case
            },
            Qt::SingleShotConnection);
        connect(suspense, &SuspenseView::caseShown, this, &Screenshot::shoot,
                Qt::SingleShotConnection);
        suspense->refresh();
    } else if (m_view == QLatin1String("outbox")) {
        connect(m_window.outbox(), &OutboxView::refreshed, this, &Screenshot::shoot,
                Qt::SingleShotConnection);
        m_window.outbox()->refresh();
    } else if (m_view == QLatin1String("recon")) {
        ReconView *recon = m_window.recon();
        connect(
            recon, &ReconView::refreshed, this,
            [this, recon] {
                if (recon->breaks()->rowCount() == 0) {
                    shoot();
                    return;
                }
                connect(recon, &ReconView::breakShown, this, &Screenshot::shoot,
                        Qt::SingleShotConnection);
                recon->selectBreak(0);
            },
            Qt::SingleShotConnection);
        recon->refresh();
    } else if (m_view == QLatin1String("approvals")) {
        ApprovalsView *approvals = m_window.approvals();
        connect(
            approvals, &ApprovalsView::refreshed, this,
            [this, approvals] {
                if (approvals->table()->rowCount() == 0) {
                    shoot();
                    return;
                }
                // Its details and its review (targets, postings) below the list.
                connect(approvals, &ApprovalsView::reviewed, this, &Screenshot::shoot,
                        Qt::SingleShotConnection);
                approvals->table()->selectRow(0);
            },
            Qt::SingleShotConnection);
        m_window.approvals()->queueChoice()->setCurrentIndex(1);
    } else
        shoot();
}

void Screenshot::openHistoryThenShoot()
{
    HistoryView *history = m_window.history();
    connect(
        history->model(), &HistoryModel::pageLoaded, this,
        [history] {
            // A settled payment has the fuller trail to show.
            const HistoryModel *model = history->model();
            int row = 0;
            for (int i = 0; i < model->rowCount(); ++i) {
                if (model->rowAt(i).state == QLatin1String("Refunded") ||
                    (row == 0 && model->rowAt(i).state == QLatin1String("Captured")))
                    row = i;
                if (model->rowAt(i).state == QLatin1String("Refunded"))
                    break;
            }
            history->selectRow(row);
        },
        Qt::SingleShotConnection);
    connect(history, &HistoryView::timelineLoaded, this, &Screenshot::shoot,
            Qt::SingleShotConnection);
    history->search();
}

void Screenshot::verifyAuditThenShoot()
{
    AuditView *audit = m_window.audit();
    connect(audit, &AuditView::verified, this, &Screenshot::shoot, Qt::SingleShotConnection);
    audit->search();
    audit->verify();
}

void Screenshot::shoot()
{
    QTimer::singleShot(300, this, [this] {
        // "charts": every Overview chart, however many the window can show.
        QWidget *shown = m_view == QLatin1String("charts") ? m_window.overview()->chartBoard()
                                                           : static_cast<QWidget *>(&m_window);
        if (!shown->grab().save(m_file))
            std::fprintf(stderr, "keel-console: cannot write %s\n", qPrintable(m_file));
        QApplication::exit(0);
    });
}

} // namespace keel
