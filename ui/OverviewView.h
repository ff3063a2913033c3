#pragma once

#include "core/metrics/OverviewQuery.h"

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

public Q_SLOTS:
    void refresh();

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
    OverviewData m_data;
    bool m_inFlight = false;
};

} // namespace keel
