#pragma once

#include "core/read/ReconQuery.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace keel {

class QueryWorker;

// Reconciliation (对账) for settlement staff: each channel's days as their
// latest runs left them (lines, matched, breaks, the difference still
// unexplained per currency), the open breaks by class and age, and one
// break's two sides — the channel's lines beside keel's record — with the
// case it opened.
class ReconView final : public QWidget {
    Q_OBJECT

public:
    explicit ReconView(QueryWorker *worker, QWidget *parent = nullptr);

    QTableWidget *runs() const { return m_runs; }
    QTableWidget *breaks() const { return m_breaks; }
    QTableWidget *ages() const { return m_ages; }
    QLabel *summary() const { return m_summary; }
    QLabel *channelSide() const { return m_channelSide; }
    QLabel *keelSide() const { return m_keelSide; }
    void selectBreak(int row);

public Q_SLOTS:
    void refresh();

Q_SIGNALS:
    void refreshed();
    void breakShown();
    void failed(const QString &message);

private:
    QWidget *breaksPane();
    QWidget *detailPane();
    void showRuns(const QList<ReconRunRow> &runs);
    void showBreaks(const QList<ReconBreakRow> &breaks);
    void showAges(const QList<ReconAgeRow> &ages);
    void showDetail(const ReconBreakRow &found, const ReconBreakDetail &detail);
    void loadDetail();

    QueryWorker *m_worker;
    QLabel *m_summary;
    QTableWidget *m_runs;
    QTableWidget *m_ages;
    QTableWidget *m_breaks;
    QLabel *m_channelSide;
    QLabel *m_keelSide;
    QList<ReconBreakRow> m_shown;
    int m_pending = 0; // lists still loading in this refresh
};

} // namespace keel
