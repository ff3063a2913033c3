#pragma once

#include <QWidget>

#include <atomic>
#include <memory>

class QComboBox;
class QDateTimeEdit;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;
class QTreeWidget;

namespace keel {

class HistoryModel;
class QueryWorker;
struct HistoryFilter;

// The auditors' payment-history browser: search, page through results of any
// size, see one payment's whole trail, export what was found as CSV.
class HistoryView final : public QWidget {
    Q_OBJECT

public:
    HistoryView(QueryWorker *worker, QWidget *parent = nullptr);

    HistoryModel *model() const { return m_model; }
    QTreeWidget *timeline() const { return m_timeline; }
    QLineEdit *searchField() const { return m_text; }
    void selectRow(int row);

    // Exports the current search to `fileName` (the dialog-free path that
    // tests and scripts use); exportFinished reports the outcome.
    void exportTo(const QString &fileName);

public Q_SLOTS:
    void search();

Q_SIGNALS:
    void timelineLoaded(int entries);
    void exportFinished(qint64 rows, const QString &error);
    void failed(const QString &message);

private:
    HistoryFilter currentFilter() const;
    void showTimeline(const QString &chargeId);
    void exportInteractively();

    QueryWorker *m_worker;
    HistoryModel *m_model;
    QLineEdit *m_text;
    QLineEdit *m_merchant;
    QLineEdit *m_minAmount;
    QLineEdit *m_maxAmount;
    QComboBox *m_state;
    QTableView *m_table;
    QTreeWidget *m_timeline;
    QLabel *m_status;
    QPushButton *m_export;
    std::shared_ptr<std::atomic<bool>> m_cancelExport;
};

} // namespace keel
