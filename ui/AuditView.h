#pragma once

#include <QWidget>

#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace keel {

class AuditModel;
class QueryWorker;
struct AuditChainReport;
struct AuditCheckpoint;

// The auditors' view of the hash-chained audit trail: every proposal,
// approval, rejection, expiry and execution, filtered and paged; and the
// chain verified on demand by the same code as `keel audit verify`, naming
// the first broken link, optionally against a checkpoint kept outside.
class AuditView final : public QWidget {
    Q_OBJECT

public:
    explicit AuditView(QueryWorker *worker, QWidget *parent = nullptr);

    AuditModel *model() const { return m_model; }
    QPushButton *verifyButton() const { return m_verify; }
    QLabel *verdict() const { return m_verdict; }

    // The dialog-free paths tests and scripts use.
    void verifyAgainst(const std::optional<AuditCheckpoint> &checkpoint);
    void saveCheckpointTo(const QString &fileName);
    // The trail the filter finds, to a CSV file; the export is itself audited.
    void exportTo(const QString &fileName);

public Q_SLOTS:
    void search();
    void verify();

Q_SIGNALS:
    // The chain was walked: whether it is intact, and the first broken seq.
    void verified(bool intact, qint64 brokenSeq);
    void checkpointSaved(const QString &error); // empty on success
    void failed(const QString &message);
    void exported(bool ok, const QString &message);

private:
    QWidget *filterBar();
    QWidget *verifyBar();
    void showReport(const AuditChainReport &report, bool againstCheckpoint);
    void verifyWithCheckpointFile();
    void saveCheckpointInteractively();

    QueryWorker *m_worker;
    AuditModel *m_model;
    QLineEdit *m_actor;
    QComboBox *m_action;
    QLineEdit *m_object;
    QTableView *m_table;
    QPushButton *m_verify;
    QLabel *m_verdict;
};

} // namespace keel
