#pragma once

#include "core/ops/ActionDesk.h"

#include <QDialog>

class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace keel {

class QueryWorker;

// Proposes one guarded action on a frozen set of targets. It shows what will
// change and how many rows first, asks why, and asks the operator to type
// the count to confirm; the proposal carries the dialog's own idempotency
// key, so a double click makes one proposal. The database decides whether
// the login may propose it and says why not.
class ProposeDialog final : public QDialog {
    Q_OBJECT

public:
    // `change` says in words what executing it will do to each target;
    // `preview` lists the targets as the operator saw them.
    ProposeDialog(QueryWorker *worker, ProposalRequest request, const QString &change,
                  const QStringList &preview, QWidget *parent = nullptr);

    QLineEdit *reasonField() const { return m_reason; }
    QLineEdit *confirmField() const { return m_confirm; }
    QLabel *result() const { return m_result; }
    // Proposes now, as the OK button does once the form is complete.
    void submit();
    bool complete() const;

Q_SIGNALS:
    void proposed(const ActionRecord &record);
    void refused(const QString &message);

private:
    void updateButtons();

    QueryWorker *m_worker;
    ProposalRequest m_request;
    QLineEdit *m_reason;
    QLineEdit *m_confirm;
    QLabel *m_result;
    QDialogButtonBox *m_buttons;
    bool m_busy = false;
};

} // namespace keel
