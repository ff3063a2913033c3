#pragma once

#include "core/read/SuspenseQuery.h"

#include <QDialog>

class QLabel;
class QPushButton;
class QTableWidget;

namespace keel {

class ProposeDialog;
class QueryWorker;

// Composes a balanced ledger adjustment for one suspense case: the suspense
// leg keel adds (taking the case's amount out of suspense) and the
// counter-postings the operator types, in major units, with the sum per
// currency and the suspense balance after them always in view. Only a
// balanced set can go on to the proposal dialog; the database checks it
// again when the proposal is stored.
class AdjustmentDialog final : public QDialog {
    Q_OBJECT

public:
    AdjustmentDialog(QueryWorker *worker, SuspenseCaseRow suspenseCase, QWidget *parent = nullptr);

    QTableWidget *postings() const { return m_postings; }
    QLabel *sum() const { return m_sum; }
    QPushButton *proposeButton() const { return m_propose; }
    // Adds a counter-posting line (tests and the Add line button).
    void addLine(const QString &account = {}, const QString &amount = {});
    // The counter-postings in minor units, or an error naming the line.
    Result<QList<std::pair<QString, qint64>>> counterPostings() const;
    // The proposal dialog for the postings as they stand; null unless balanced.
    ProposeDialog *continueToProposal();

Q_SIGNALS:
    void ready(); // accounts and the suspense balance have loaded
    void proposalOpened(ProposeDialog *proposal);

private:
    void recompute();

    QueryWorker *m_worker;
    SuspenseCaseRow m_case;
    QStringList m_accounts;
    qint64 m_suspenseBalance = 0;
    QTableWidget *m_postings;
    QLabel *m_sum;
    QLabel *m_after;
    QPushButton *m_propose;
};

} // namespace keel
