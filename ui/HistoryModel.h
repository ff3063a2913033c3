#pragma once

#include "core/read/HistoryQuery.h"
#include "ui/PagedTableModel.h"

namespace keel {

// Payments matching a filter, newest first, a keyset page at a time.
class HistoryModel final : public PagedRows<HistoryFilter, HistoryPage, HistoryRow, HistoryCursor> {
    Q_OBJECT

public:
    enum Column {
        Charge,
        Created,
        Merchant,
        OrderNo,
        Amount,
        Captured,
        Refunded,
        State,
        ColumnCount
    };
    static constexpr int PageSize = 200;

    // Pages from the database, read on the query worker.
    static Pages pagesFrom(QueryWorker *worker);

    explicit HistoryModel(Pages pages, QObject *parent = nullptr);

    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
};

} // namespace keel
