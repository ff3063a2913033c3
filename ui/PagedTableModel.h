#pragma once

#include "core/Result.h"
#include "ui/QueryWorker.h"

#include <QAbstractTableModel>
#include <QList>

#include <functional>
#include <optional>

namespace keel {

// A table model that loads keyset pages on the query worker as the view
// scrolls: deep pages cost what the first does, an answer to an older search
// is dropped, and the cursor moves before rows are announced (a view that
// reacts to the insertion may ask for the next page at once).
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
    explicit PagedTableModel(QueryWorker *worker, QObject *parent)
        : QAbstractTableModel(parent), m_worker(worker)
    {}

    // Forgets the rows (the caller clears its own between begin/endResetModel).
    void restart()
    {
        m_exhausted = false;
        m_loading = false;
        ++m_generation;
    }

    // Asks for the page after `after`; `rowsOf` and `nextOf` take a page apart,
    // and its rows are appended to `rows`, with `next` moved on.
    template <typename Page, typename Row, typename Cursor>
    void fetchPage(QList<Row> &rows, std::optional<Cursor> &next,
                   std::function<Result<Page>(QSqlDatabase, std::optional<Cursor>)> load,
                   QList<Row> (*rowsOf)(const Page &),
                   std::optional<Cursor> (*nextOf)(const Page &))
    {
        if (!canFetchMore({}))
            return;
        m_loading = true;
        const int generation = m_generation;
        m_worker->submit<Page>(
            this,
            [load = std::move(load), after = next](QSqlDatabase db) { return load(db, after); },
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
    QueryWorker *m_worker;
    bool m_exhausted = true;
    bool m_loading = false;
    int m_generation = 0;
};

} // namespace keel
