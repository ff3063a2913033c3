#pragma once

#include "core/read/SuspenseQuery.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;
class QTreeWidget;

namespace keel {

class AdjustmentDialog;
class CaseSearchBar;
class ProposeDialog;
class QueryWorker;
struct ActionRecord;
namespace CaseResolutions {
enum class GiveBackTo;
enum class OwedBy;
} // namespace CaseResolutions

// The settlement staff's suspense workbench: the queue of cases (age,
// amount, owner, status, past-deadline marks), one case's whole money trail,
// taking a case, notes with references, and resolving it by retrying the
// compensation, a balanced ledger adjustment or a write-off (guarded actions
// a second person approves).
class SuspenseView final : public QWidget {
    Q_OBJECT

public:
    explicit SuspenseView(QueryWorker *worker, QWidget *parent = nullptr);

    QTableWidget *queue() const { return m_queue; }
    QPushButton *moreButton() const { return m_more; }
    QCheckBox *overdueOnly() const { return m_overdue; }
    QCheckBox *noticesOnly() const { return m_notices; }
    CaseSearchBar *search() const { return m_search; }
    QTreeWidget *trail() const { return m_trail; }
    QPushButton *takeButton() const { return m_take; }
    QPushButton *noteButton() const { return m_note; }
    QPushButton *retryButton() const { return m_retry; }
    QPushButton *adjustButton() const { return m_adjust; }
    QPushButton *writeOffButton() const { return m_writeOff; }
    QPushButton *giveBackButton() const { return m_giveBack; }
    QPushButton *chargeOwedButton() const { return m_chargeOwed; }
    QLabel *result() const { return m_result; }
    // What the login may do (the database decides anyway): take cases and
    // propose money-moving resolutions (keel_operator), add notes
    // (keel_operator, keel_approver); and which trail sources it may read.
    void setAccess(bool canWork, bool canNote, const QStringList &trailSources);
    void selectCase(int row);

    // The button paths without their dialogs (tests, keyboard users).
    void takeSelected();
    void addNoteToSelected(const QString &note, const QString &reference);
    ProposeDialog *proposeRetryCompensation();
    ProposeDialog *proposeWriteOff();
    ProposeDialog *proposeGiveBack(CaseResolutions::GiveBackTo to);
    ProposeDialog *proposeChargeOwed(CaseResolutions::OwedBy by);
    // The adjustment composer, made but not shown; its proposal reports here.
    AdjustmentDialog *composeAdjustment();
    // The cases the current filter finds, to a CSV file with the filter at
    // its top; the export is recorded in the audit trail.
    void exportTo(const QString &fileName);
    // The current filter in words, as an export names it.
    QString filterText() const;

public Q_SLOTS:
    void refresh();

Q_SIGNALS:
    void listed(int rows);
    void caseShown(qint64 caseId);
    void acted(bool ok, const QString &message);
    void proposed(const ActionRecord &record);
    void failed(const QString &message);
    void exported(bool ok, const QString &message);

private:
    QWidget *filterBar();
    Result<SuspenseCaseFilter> filterOnScreen() const;
    QWidget *detailPane();
    const SuspenseCaseRow *selected() const;
    void load(const SuspenseCaseFilter &filter, bool append);
    void loadMore();
    void showQueue(const QList<SuspenseCaseRow> &rows, bool append);
    void showTrail(const QList<TimelineEntry> &entries);
    void updateButtons();
    void askForNote();

    QueryWorker *m_worker;
    QComboBox *m_status;
    QCheckBox *m_mine;
    QCheckBox *m_overdue;
    QCheckBox *m_notices;
    CaseSearchBar *m_search;
    QTableWidget *m_queue;
    QPushButton *m_more;
    QLabel *m_header;
    QTreeWidget *m_trail;
    QLabel *m_result;
    QPushButton *m_take;
    QPushButton *m_note;
    QPushButton *m_retry;
    QPushButton *m_adjust;
    QPushButton *m_writeOff;
    QPushButton *m_giveBack;
    QPushButton *m_chargeOwed;
    QList<SuspenseCaseRow> m_rows;
    SuspenseCaseFilter m_filter;
    QStringList m_sources;
    bool m_canWork = false;
    bool m_canNote = false;
};

} // namespace keel
