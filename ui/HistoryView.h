#pragma once

#include "core/Result.h"

#include <QStringList>
#include <QWidget>

#include <atomic>
#include <memory>

class QComboBox;
class QDateTime;
class QDateTimeEdit;
class QLabel;
class QLayout;
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
    // Which parts of a payment's trail to read: what the session's grants allow.
    void setTimelineSources(const QStringList &sources);
    // Limits searches to payments created in [from, to); invalid times leave that end open.
    void setCreatedRange(const QDateTime &from, const QDateTime &to);

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
    // The filter the fields describe, or an error naming the field at fault.
    Result<HistoryFilter> currentFilter() const;
    void setUpFilters();
    QLayout *filterLines(QPushButton *find);
    void setUpResults();
    QWidget *resultsAndTrail();
    void handlePageLoaded();
    void showCreatedRange(int choice);
    void showTimeline(const QString &chargeId);
    void exportInteractively();

    QueryWorker *m_worker;
    HistoryModel *m_model;
    QLineEdit *m_text;
    QLineEdit *m_merchant;
    QLineEdit *m_minAmount;
    QLineEdit *m_maxAmount;
    QComboBox *m_state;
    QComboBox *m_created;
    QDateTimeEdit *m_from;
    QDateTimeEdit *m_to;
    QTableView *m_table;
    QTreeWidget *m_timeline;
    QLabel *m_status;
    QLabel *m_timelineNote;
    QPushButton *m_export;
    QStringList m_timelineSources;
    std::shared_ptr<std::atomic<bool>> m_cancelExport;
};

} // namespace keel
