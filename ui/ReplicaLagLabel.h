#pragma once

#include "core/read/ReplicaLag.h"

#include <QElapsedTimer>
#include <QLabel>
#include <QTimer>

#include <optional>

namespace keel {

class QueryWorker;

// The status bar's word on the read replica: how far the dashboards and the
// payment history it serves trail the primary. Asked every few seconds, the
// primary's log position first, then the replica against it, so that
// "current" means nothing committed before the question is missing.
class ReplicaLagLabel final : public QLabel {
    Q_OBJECT

public:
    ReplicaLagLabel(QueryWorker *primary, QueryWorker *replica, QWidget *parent = nullptr);

    // The last answer; empty before the first or after a failed one.
    const std::optional<ReplicaLag> &lag() const { return m_lag; }
    void refresh();

Q_SIGNALS:
    void lagChanged();

private:
    void display(const std::optional<ReplicaLag> &lag);
    void displayWaiting(qint64 seconds);
    void setBold(bool bold);

    QueryWorker *m_primary;
    QueryWorker *m_replica;
    QTimer m_timer;
    std::optional<ReplicaLag> m_lag;
    QElapsedTimer m_asked; // since the ask still unanswered; invalid when none is
    quint64 m_asks = 0;    // the number of the latest ask
};

} // namespace keel
