#pragma once

#include "core/read/HistoryQuery.h"
#include "ui/PagedTableModel.h"

namespace keel {

// Payments matching a filter, newest first, a keyset page at a time.
class HistoryModel final : public PagedTableModel {
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

    using Pages = PageSource<HistoryFilter, HistoryPage, HistoryCursor>;
    // Pages from the database, read on the query worker.
    static Pages pagesFrom(QueryWorker *worker);

    explicit HistoryModel(Pages pages, QObject *parent = nullptr);

    void search(const HistoryFilter &filter);
    const HistoryFilter &filter() const { return m_filter; }
    const HistoryRow &rowAt(int row) const { return m_rows.at(row); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    void fetchMore(const QModelIndex &parent) override;

private:
    Pages m_pages;
    HistoryFilter m_filter;
    QList<HistoryRow> m_rows;
    std::optional<HistoryCursor> m_next;
};

} // namespace keel
