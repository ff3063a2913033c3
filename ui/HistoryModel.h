#pragma once

#include "core/read/HistoryQuery.h"

#include <QAbstractTableModel>

namespace keel {

class QueryWorker;

// Payments matching a filter, newest first, fetched a page at a time on the
// query worker as the view scrolls (keyset pagination: deep pages cost what
// the first does).
class HistoryModel final : public QAbstractTableModel {
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

    explicit HistoryModel(QueryWorker *worker, QObject *parent = nullptr);

    void search(const HistoryFilter &filter);
    const HistoryFilter &filter() const { return m_filter; }
    const HistoryRow &rowAt(int row) const { return m_rows.at(row); }
    bool loading() const { return m_loading; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    bool canFetchMore(const QModelIndex &parent) const override;
    void fetchMore(const QModelIndex &parent) override;

Q_SIGNALS:
    void pageLoaded(int rows);
    void loadFailed(const QString &message);

private:
    QueryWorker *m_worker;
    HistoryFilter m_filter;
    QList<HistoryRow> m_rows;
    std::optional<HistoryCursor> m_next;
    bool m_exhausted = true;
    bool m_loading = false;
    int m_generation = 0; // answers to an older search are ignored
};

} // namespace keel
