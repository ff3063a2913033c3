#pragma once

#include "core/ops/OperationsNow.h"

#include <QWidget>

class QLabel;
class QTimer;

namespace keel {

class QueryWorker;

// The Overview's row of "now" figures: the outbox (backlog, oldest
// unpublished, parked), sagas by status and stuck, and open suspense cases
// by age. Figures the login may not read are left out.
class OperationsPanel final : public QWidget {
    Q_OBJECT

public:
    explicit OperationsPanel(QueryWorker *worker, QWidget *parent = nullptr);

    void setScope(const AttentionScope &scope);
    const OperationsNow &figures() const { return m_now; }
    QLabel *outbox() const { return m_outbox; }
    QLabel *sagas() const { return m_sagas; }
    QLabel *cases() const { return m_cases; }

public Q_SLOTS:
    void refresh();

Q_SIGNALS:
    void refreshed();

private:
    void show(const OperationsNow &now);

    QueryWorker *m_worker;
    AttentionScope m_scope;
    OperationsNow m_now;
    QLabel *m_outbox;
    QLabel *m_sagas;
    QLabel *m_cases;
    QTimer *m_timer;
};

} // namespace keel
