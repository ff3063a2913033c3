#pragma once

#include "core/read/OverviewQuery.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QTimer;

namespace keel {

class ChartPanel;
class QueryWorker;

// The SRE's first screen: idempotency hit and conflict rates, requests by
// outcome, latency percentiles and money moved, on one time axis, refreshed
// every few seconds off the GUI thread.
class OverviewView final : public QWidget {
    Q_OBJECT

public:
    OverviewView(QueryWorker *worker, QWidget *parent = nullptr);

    void setRangeSeconds(qint64 seconds);
    qint64 rangeSeconds() const;
    const OverviewData &data() const { return m_data; }
    QList<ChartPanel *> charts() const { return m_charts; }
    // Every chart, laid out as on screen but not cut by the scroll area.
    QWidget *chartBoard() const { return m_board; }
    // What to read besides the rollups, from the session's grants.
    void setScope(OverviewScope scope) { m_scope = scope; }
    // Puts a row of figures between the range bar and the charts.
    void addPanel(QWidget *panel);
    // Polls every few seconds; with live updates on, notifications drive the
    // refreshes and polling only catches what they might miss.
    void startPolling();
    void setLiveUpdates(bool live);
    bool liveUpdates() const { return m_live; }

public Q_SLOTS:
    void refresh();
    // A change was announced: refresh soon, coalescing bursts.
    void refreshSoon();

Q_SIGNALS:
    void refreshed(); // new data is on screen
    void refreshFailed(const QString &message);
    void rangeChanged(qint64 seconds);

private:
    void display(const OverviewData &data);

    QueryWorker *m_worker;
    QComboBox *m_range;
    QLabel *m_summary;
    QTimer *m_timer;
    QList<ChartPanel *> m_charts;
    QWidget *m_board = nullptr;
    OverviewData m_data;
    QTimer *m_soon;
    OverviewScope m_scope;
    bool m_inFlight = false;
    bool m_again = false; // a change arrived while a refresh was running
    bool m_live = false;
};

} // namespace keel
