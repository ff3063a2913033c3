#pragma once

#include "core/saga/SagaQuery.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;
class QTreeWidget;

namespace keel {

class ProposeDialog;
class QueryWorker;
struct ActionRecord;

// The SREs' sagas: filtered by definition, status, age, merchant and
// business key, the stuck ones first (by age and by attempt count); one
// saga's steps and its every attempt on a timeline; manual actions proposed
// for a second person to approve.
class SagasView final : public QWidget {
    Q_OBJECT

public:
    enum class Action { RetryNow, ForceCompensation, Park, Resume, SkipStep };

    explicit SagasView(QueryWorker *worker, QWidget *parent = nullptr);

    QTableWidget *list() const { return m_list; }
    QPushButton *moreButton() const { return m_more; }
    QTableWidget *steps() const { return m_steps; }
    QTreeWidget *timeline() const { return m_timeline; }
    QCheckBox *stuckOnly() const { return m_stuckOnly; }
    QPushButton *actionButton(Action action) const;
    // What the login may propose: anything (keel_operator), or only what
    // moves no money (keel_sre); the database decides either way.
    void setAccess(bool canPropose, bool canMoveMoney);
    void selectSaga(int row);
    // The dialog an action button opens, made but not shown (tests drive it).
    ProposeDialog *propose(Action action);

public Q_SLOTS:
    void search();

Q_SIGNALS:
    void listed(int rows);
    void sagaShown(const QString &publicId);
    void proposed(const ActionRecord &record);
    void failed(const QString &message);

private:
    // What an action applies to: the selected rows when there are several,
    // else the saga shown, each at the version the operator saw.
    struct Target {
        QString publicId;
        QString name;
        QString status;
        int step = 0;
        int version = 0;
    };
    QList<Target> targets() const;
    QWidget *filterBar();
    QWidget *detailPane();
    SagaFilter currentFilter() const;
    void load(const SagaFilter &filter, bool append);
    void showSagas(const QList<SagaSummary> &sagas, bool append);
    void showSaga(const SagaRecord &saga);
    void updateButtons();

    QueryWorker *m_worker;
    QLineEdit *m_definition;
    QComboBox *m_status;
    QLineEdit *m_merchant;
    QLineEdit *m_businessKey;
    QComboBox *m_age;
    QCheckBox *m_stuckOnly;
    QTableWidget *m_list;
    QPushButton *m_more;
    QLabel *m_header;
    QTableWidget *m_steps;
    QTreeWidget *m_timeline;
    QList<QPushButton *> m_actions;
    QList<SagaSummary> m_sagas;
    std::optional<SagaRecord> m_shown;
    SagaFilter m_lastFilter;
    bool m_canPropose = false;
    bool m_canMoveMoney = false;
};

} // namespace keel
