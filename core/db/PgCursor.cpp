#include "core/db/PgCursor.h"

#include "core/db/LibpqConnection.h"

#include <future>

namespace keel {

Status readInBatches(LibpqConnection &session, const QByteArray &cursor, const QByteArray &sql,
                     const QByteArrayList &params, int batchRows,
                     const std::function<Status(const PgRows &)> &take)
{
    if (batchRows <= 0) // FETCH FORWARD 0 returns the current row again, for ever
        return makeError(ErrorKind::Usage, QStringLiteral("a batch takes at least one row"));
    // A cursor's plan is otherwise chosen to return its first tenth soonest.
    if (Status whole = session.exec("SET LOCAL cursor_tuple_fraction = 1"); !whole)
        return whole;
    if (Result<PgRows> declared =
            session.query("DECLARE " + cursor + " NO SCROLL CURSOR FOR " + sql, params);
        !declared)
        return declared.error();
    const QByteArray fetch = "FETCH FORWARD " + QByteArray::number(batchRows) + " FROM " + cursor;
    const auto fetchNext = [&session, &fetch] {
        return session.query(fetch);
    };
    Result<PgRows> batch = fetchNext();
    for (;;) {
        if (!batch)
            return batch.error();
        const PgRows current = std::move(batch).value();
        const bool last = current.size() < batchRows;
        // The server makes the next batch while this one is taken: a cursor
        // otherwise waits, idle, for each FETCH.
        std::future<Result<PgRows>> next;
        if (!last)
            next = std::async(std::launch::async, fetchNext);
        const Status taken = take(current);
        if (!last)
            batch = next.get();
        if (!taken) {
            // The transaction goes on: the name is free for another read.
            (void)session.exec("CLOSE " + cursor);
            return taken;
        }
        if (last)
            break;
    }
    return session.exec("CLOSE " + cursor);
}

} // namespace keel
