#include "core/outbox/Inbox.h"

#include "core/db/LibpqConnection.h"
#include "core/db/PgTransaction.h"

namespace keel {

Result<bool> Inbox::claim(const QString &consumer, const QString &messageId)
{
    Result<PgRows> rows =
        m_connection.query("INSERT INTO keel.inbox (consumer, message_id) VALUES ($1, $2) "
                           "ON CONFLICT (consumer, message_id) DO NOTHING",
                           {consumer.toUtf8(), messageId.toUtf8()});
    if (!rows)
        return rows.error();
    return rows->affected() == 1;
}

Result<Inbox::Outcome> Inbox::process(const QString &consumer, const QString &messageId,
                                      const std::function<Status(LibpqConnection &)> &effect)
{
    PgTransaction tx(m_connection);
    if (!tx.begun())
        return tx.begun().error();
    Result<bool> fresh = claim(consumer, messageId);
    if (!fresh)
        return fresh.error();
    if (!*fresh)
        return Outcome::Duplicate; // rolled back: nothing to keep
    if (Status done = effect(m_connection); !done)
        return done.error();
    if (Status committed = tx.commit(); !committed)
        return committed.error();
    return Outcome::Applied;
}

Result<int> Inbox::sweep(int keepSeconds, int batch)
{
    Result<PgRows> rows =
        m_connection.query("DELETE FROM keel.inbox WHERE ctid IN (SELECT ctid FROM keel.inbox "
                           "  WHERE received_at < now() - $1 * interval '1 second' LIMIT $2)",
                           {QByteArray::number(keepSeconds), QByteArray::number(batch)});
    if (!rows)
        return rows.error();
    return rows->affected();
}

} // namespace keel
