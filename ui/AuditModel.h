#pragma once

#include "core/read/AuditQuery.h"
#include "ui/PagedTableModel.h"

namespace keel {

// The audit trail matching a filter, newest first, a page at a time as the
// view scrolls.
class AuditModel final : public PagedRows<AuditFilter, AuditPage, AuditEntry, qint64> {
    Q_OBJECT

public:
    enum Column { Seq, At, Actor, Action, Object, Detail, Hash, ColumnCount };
    static constexpr int PageSize = 200;

    // Pages from the database, read on the query worker.
    static Pages pagesFrom(QueryWorker *worker);

    explicit AuditModel(Pages pages, QObject *parent = nullptr);

    // The row showing `seq`, or -1 if it is not loaded.
    int rowOf(qint64 seq) const;
    // Marks the link where verification found the chain broken (0: none).
    void setBrokenSeq(qint64 seq);

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    qint64 m_brokenSeq = 0;
};

} // namespace keel
