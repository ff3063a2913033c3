#pragma once

#include "core/ops/ActionReview.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace keel {

// What executing a proposal will do, shown to its approver whole: every
// frozen target with the version it must still have (scrollable, however
// many a bulk action names), and for a case resolution each posting with the
// account's balance before and after.
class ActionReviewPane final : public QWidget {
    Q_OBJECT

public:
    explicit ActionReviewPane(QWidget *parent = nullptr);

    void show(const ActionReview &review);
    void clear();

    QTableWidget *targets() const { return m_targets; }
    QTableWidget *postings() const { return m_postings; }

private:
    QLabel *m_summary;
    QTableWidget *m_targets;
    QTableWidget *m_postings;
};

} // namespace keel
