#pragma once

#include "core/Result.h"
#include "ui/QueryWorker.h"

#include <QAbstractTableModel>
#include <QList>

#include <functional>
#include <optional>

namespace keel {

// Where a paged model's pages come from: a query on the console's worker
// thread (pagesOn), or, in widget tests, rows held in memory. A source hands
// the page to `deliver` on the receiver's thread, now or later.
template <typename Filter, typename Page, typename Cursor>
using PageSource =
    std::function<void(QObject *receiver, const Filter &filter, const std::optional<Cursor> &after,
                       std::function<void(const Result<Page> &)> deliver)>;

// Pages read by `query` on the query worker; the result is dropped if the
// receiver is gone by then.
template <typename Filter, typename Page, typename Cursor>
PageSource<Filter, Page, Cursor>
pagesOn(QueryWorker *worker,
        std::function<Result<Page>(QSqlDatabase, const Filter &, std::optional<Cursor>)> query)
{
    return [worker, query = std::move(query)](QObject *receiver, const Filter &filter,
                                              const std::optional<Cursor> &after,
                                              std::function<void(const Result<Page> &)> deliver) {
        worker->submit<Page>(
            receiver, [query, filter, after](QSqlDatabase db) { return query(db, filter, after); },
            std::move(deliver));
    };
}

// A table model that loads keyset pages as the view scrolls: deep pages cost
// what the first does, an answer to an older search is dropped, and the
// cursor moves before rows are announced (a view that reacts to the insertion
// may ask for the next page at once).
class PagedTableModel : public QAbstractTableModel {
    Q_OBJECT

public:
    bool loading() const { return m_loading; }
    bool canFetchMore(const QModelIndex &parent) const override
    {
        return !parent.isValid() && !m_exhausted && !m_loading;
    }

Q_SIGNALS:
    void pageLoaded(int rows);
    void loadFailed(const QString &message);

protected:
    explicit PagedTableModel(QObject *parent) : QAbstractTableModel(parent) {}

    // Forgets the rows (the caller clears its own between begin/endResetModel).
    void restart()
    {
        m_exhausted = false;
        m_loading = false;
        ++m_generation;
    }

    // Asks `source` for the page of `filter` after `next`; `rowsOf` and
    // `nextOf` take a page apart, and its rows are appended to `rows`, with
    // `next` moved on.
    template <typename Filter, typename Page, typename Row, typename Cursor>
    void fetchPage(const PageSource<Filter, Page, Cursor> &source, const Filter &filter,
                   QList<Row> &rows, std::optional<Cursor> &next,
                   QList<Row> (*rowsOf)(const Page &),
                   std::optional<Cursor> (*nextOf)(const Page &))
    {
        if (!canFetchMore({}))
            return;
        m_loading = true;
        const int generation = m_generation;
        source(this, filter, next,
               [this, generation, &rows, &next, rowsOf, nextOf](const Result<Page> &page) {
                   if (generation != m_generation)
                       return;
                   m_loading = false;
                   if (!page) {
                       m_exhausted = true;
                       Q_EMIT loadFailed(page.error().message);
                       return;
                   }
                   next = nextOf(*page);
                   m_exhausted = !next.has_value();
                   const QList<Row> added = rowsOf(*page);
                   if (!added.isEmpty()) {
                       beginInsertRows({}, int(rows.size()), int(rows.size() + added.size()) - 1);
                       rows += added;
                       endInsertRows();
                   }
                   Q_EMIT pageLoaded(int(added.size()));
               });
    }

private:
    bool m_exhausted = true;
    bool m_loading = false;
    int m_generation = 0;
};

// The rows of one search, a page at a time, and what every paged model does
// with them; a model adds its columns (columnCount, data, headerData).
template <typename Filter, typename Page, typename Row, typename Cursor>
class PagedRows : public PagedTableModel {
public:
    using Pages = PageSource<Filter, Page, Cursor>;

    // Forgets the rows and loads the first page of `filter`.
    void search(const Filter &filter)
    {
        beginResetModel();
        m_filter = filter;
        m_rows.clear();
        m_next.reset();
        restart();
        endResetModel();
        fetchMore({});
    }
    const Filter &filter() const { return m_filter; }
    const Row &rowAt(int row) const { return m_rows.at(row); }

    int rowCount(const QModelIndex &parent = {}) const override
    {
        return parent.isValid() ? 0 : int(m_rows.size());
    }
    void fetchMore(const QModelIndex &parent) override
    {
        if (!parent.isValid())
            fetchPage<Filter, Page, Row, Cursor>(m_pages, m_filter, m_rows, m_next, m_rowsOf,
                                                 m_nextOf);
    }

protected:
    PagedRows(Pages pages, QList<Row> (*rowsOf)(const Page &),
              std::optional<Cursor> (*nextOf)(const Page &), QObject *parent)
        : PagedTableModel(parent), m_pages(std::move(pages)), m_rowsOf(rowsOf), m_nextOf(nextOf)
    {}
    const QList<Row> &rows() const { return m_rows; }

private:
    Pages m_pages;
    QList<Row> (*m_rowsOf)(const Page &);
    std::optional<Cursor> (*m_nextOf)(const Page &);
    Filter m_filter;
    QList<Row> m_rows;
    std::optional<Cursor> m_next;
};

} // namespace keel
