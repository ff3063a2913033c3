#pragma once

#include "core/ops/Attention.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTimer;

namespace keel {

class QueryWorker;

// The headline of what needs a person now: stuck sagas, parked messages and
// notifications, cases past their deadline, channel notices kept for a
// person, proposals waiting for a
// decision. Each is a click away from its list; figures the login may not
// read are left out.
class AttentionBar final : public QWidget {
    Q_OBJECT

public:
    explicit AttentionBar(QueryWorker *worker, QWidget *parent = nullptr);

    void setScope(const AttentionScope &scope);
    const AttentionCounts &counts() const { return m_counts; }
    QPushButton *button(const QString &view) const;

public Q_SLOTS:
    void refresh();

Q_SIGNALS:
    void refreshed();
    // The user wants the list behind a figure: sagas (stuck), suspense
    // (overdue), notices (the suspense cases channel notices opened), outbox,
    // approvals.
    void openRequested(const QString &view);

private:
    void show(const AttentionCounts &counts);

    QueryWorker *m_worker;
    AttentionScope m_scope;
    AttentionCounts m_counts;
    QLabel *m_title;
    QPushButton *m_sagas;
    QPushButton *m_messages;
    QPushButton *m_notifications;
    QPushButton *m_cases;
    QPushButton *m_notices;
    QPushButton *m_proposals;
    QPushButton *m_breaks;
    QTimer *m_timer;
};

} // namespace keel
