#pragma once

#include "core/read/ReconQuery.h"

#include <QWidget>

#include <functional>

class QDateEdit;
class QLabel;
class QPushButton;
class QTableWidget;

namespace keel {

class ProposeDialog;
class QueryWorker;
namespace BreakResolutions {
enum class TakeBackBearer;
}
struct ActionRecord;
struct ProposalRequest;

// Reconciliation (对账) for settlement staff: each channel's days as their
// latest runs left them (lines, matched, breaks, the difference still
// unexplained per currency), the open breaks by class and age, and one
// break's two sides — the channel's lines beside keel's record — with the
// case it opened. A break is resolved by a guarded proposal: matched by hand
// to its counterpart, accepted until a date, booked as a fee adjustment, or
// taken back from the merchant or as a loss where the channel holds less;
// a statement imported wrong is withdrawn the same way.
class ReconView final : public QWidget {
    Q_OBJECT

public:
    explicit ReconView(QueryWorker *worker, QWidget *parent = nullptr);

    QTableWidget *runs() const { return m_runs; }
    QTableWidget *statements() const { return m_statements; }
    QPushButton *withdrawButton() const { return m_withdraw; }
    QTableWidget *breaks() const { return m_breaks; }
    QPushButton *moreBreaksButton() const { return m_moreBreaks; }
    QTableWidget *ages() const { return m_ages; }
    QLabel *summary() const { return m_summary; }
    QLabel *channelSide() const { return m_channelSide; }
    QLabel *keelSide() const { return m_keelSide; }
    QLabel *timeline() const { return m_timeline; }
    QPushButton *matchButton() const { return m_match; }
    QPushButton *acceptButton() const { return m_accept; }
    QPushButton *feeButton() const { return m_adjustFee; }
    QPushButton *takeBackButton() const { return m_takeBack; }
    QDateEdit *acceptUntil() const { return m_acceptUntil; }
    void selectBreak(int row);
    // Selects these rows of the breaks list, and only these.
    void selectBreaks(const QList<int> &rows);

    // The proposal dialogs of the selected break or breaks; nullptr when the
    // selection does not allow one.
    ProposeDialog *proposeMatch();
    ProposeDialog *proposeAcceptance();
    ProposeDialog *proposeFeeAdjustment();
    ProposeDialog *proposeTakeBack(BreakResolutions::TakeBackBearer bearer);
    // Withdrawing the selected statement.
    ProposeDialog *proposeWithdrawal();

public Q_SLOTS:
    void refresh();

Q_SIGNALS:
    void refreshed();
    void breaksLoaded(); // a further page of breaks
    void breakShown();
    void failed(const QString &message);
    void proposed(const ActionRecord &record);

private:
    QWidget *breaksPane();
    QWidget *statementsPane();
    void showStatements(const QList<ReconStatementRow> &statements);
    const ReconStatementRow *selectedStatement() const;
    QWidget *detailPane();
    void showRuns(const QList<ReconRunRow> &runs);
    void showBreaks(const QList<ReconBreakRow> &breaks, bool append);
    void loadBreaks(const std::optional<ReconBreakRow> &after, const std::function<void()> &done);
    void loadMoreBreaks();
    void showAges(const QList<ReconAgeRow> &ages);
    void showDetail(const ReconBreakRow &found, const ReconBreakDetail &detail);
    void loadDetail();
    QWidget *resolutionBar();
    QList<ReconBreakRow> selectedBreaks() const;
    void updateResolutions();
    ProposeDialog *openProposal(const ProposalRequest &request, const QString &change,
                                const QStringList &preview);

    QueryWorker *m_worker;
    QLabel *m_summary;
    QTableWidget *m_runs;
    QTableWidget *m_statements;
    QPushButton *m_withdraw;
    QList<ReconStatementRow> m_statementRows;
    QTableWidget *m_ages;
    QTableWidget *m_breaks;
    QPushButton *m_moreBreaks;
    QLabel *m_channelSide;
    QLabel *m_keelSide;
    QLabel *m_timeline;
    QPushButton *m_match;
    QPushButton *m_accept;
    QDateEdit *m_acceptUntil;
    QPushButton *m_adjustFee;
    QPushButton *m_takeBack;
    QList<ReconBreakRow> m_shown;
    int m_breakList = 0; // which refresh the shown breaks began with
    int m_pending = 0;   // lists still loading in this refresh
};

} // namespace keel
