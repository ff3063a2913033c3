#pragma once

#include "core/ops/ActionReview.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace keel {

class ActionReviewPane;
class QueryWorker;

// The maker-checker queue: proposals waiting for this login (others' to
// approve or reject, its own approved ones to execute) or all of them. The
// buttons follow the login's roles; the database has the last word and its
// refusal is shown as it said it.
class ApprovalsView final : public QWidget {
    Q_OBJECT

public:
    explicit ApprovalsView(QueryWorker *worker, QWidget *parent = nullptr);

    QTableWidget *table() const { return m_table; }
    QComboBox *queueChoice() const { return m_queue; }
    QPushButton *approveButton() const { return m_approve; }
    QPushButton *rejectButton() const { return m_reject; }
    QPushButton *executeButton() const { return m_execute; }
    QLabel *result() const { return m_result; }
    QLabel *details() const { return m_details; }
    ActionReviewPane *review() const { return m_review; }
    // What the login's roles offer; the database enforces it either way.
    void setAccess(bool canApprove, bool canExecute);
    // Selects the row of an action; false if it is not listed.
    bool select(qint64 actionId);

    // The button paths without their dialogs (tests, keyboard users).
    void approveSelected(const QString &comment);
    void rejectSelected(const QString &comment);
    void executeSelected();
    // Every proposal and its decisions to a CSV file; the export is audited.
    void exportTo(const QString &fileName);

public Q_SLOTS:
    void refresh();

Q_SIGNALS:
    void refreshed(int rows);
    // One decision or execution finished: ok, and what to tell the user.
    void acted(bool ok, const QString &message);
    // The selected proposal's review is loaded and shown; approving is possible.
    void reviewed(qint64 actionId);
    void exported(bool ok, const QString &message);

private:
    const ActionRecord *selected() const;
    void show(const QList<ActionRecord> &records);
    void updateButtons();
    void loadReview();
    void act(std::function<Status(ActionDesk &)> step, const QString &done);
    void askAndApprove();
    void askAndReject();

    QueryWorker *m_worker;
    QComboBox *m_queue;
    QTableWidget *m_table;
    QLabel *m_details;
    ActionReviewPane *m_review;
    // What the approver was shown of the selected proposal: approving names its hash.
    std::optional<ActionReview> m_shown;
    QLabel *m_result;
    QPushButton *m_approve;
    QPushButton *m_reject;
    QPushButton *m_execute;
    QList<ActionRecord> m_records;
    bool m_canApprove = false;
    bool m_canExecute = false;
};

} // namespace keel
