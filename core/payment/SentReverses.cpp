#include "core/payment/SentReverses.h"

#include "core/db/LibpqConnection.h"
#include "core/db/ThreadConnections.h"

namespace keel {

SentReverses::SentReverses(ConnectionSettings settings, QString channel)
    : m_settings(std::move(settings)), m_channel(std::move(channel))
{
    m_settings.set(QStringLiteral("application_name"), QStringLiteral("keel-channel-reverses"));
}

Result<PgRows> SentReverses::run(const QByteArray &sql, const QByteArrayList &params)
{
    Result<LibpqConnection *> session = ThreadConnections::get(m_settings);
    if (!session)
        return session.error();
    return (*session)->query(sql, params);
}

Result<qint64> SentReverses::record(const QString &order)
{
    Result<PgRows> rows = run("INSERT INTO keel.channel_reverses (channel, order_no) "
                              "VALUES ($1, $2) RETURNING copy",
                              {m_channel.toUtf8(), order.toUtf8()});
    if (!rows)
        return rows.error();
    return rows->toInt64(0, 0);
}

Status SentReverses::settle(qint64 copy)
{
    return statusOf(run("UPDATE keel.channel_reverses SET settled_at = now() "
                        "WHERE copy = $1 AND settled_at IS NULL",
                        {QByteArray::number(copy)}));
}

Status SentReverses::settleOrder(const QString &order)
{
    return statusOf(run("UPDATE keel.channel_reverses SET settled_at = now(), order_closed = true "
                        "WHERE channel = $1 AND order_no = $2 AND settled_at IS NULL",
                        {m_channel.toUtf8(), order.toUtf8()}));
}

Result<SentReverses::Standing> SentReverses::standing(const QString &order, int staleAfterSeconds)
{
    Result<PgRows> rows = run(
        "SELECT coalesce(bool_or(settled_at IS NULL), false), coalesce(bool_or(order_closed), "
        "false), coalesce(bool_or(settled_at IS NULL AND sent_at < now() - make_interval(secs => "
        "$3::int)), false) FROM keel.channel_reverses WHERE channel = $1 AND order_no = $2",
        {m_channel.toUtf8(), order.toUtf8(), QByteArray::number(staleAfterSeconds)});
    if (!rows)
        return rows.error();
    return Standing{rows->view(0, 0) == "t", rows->view(0, 1) == "t", rows->view(0, 2) == "t"};
}

bool SentReverses::approvalMayBeUndone(const QString &order)
{
    const Result<Standing> now = standing(order);
    return !now || now->unsettled || now->closed;
}

} // namespace keel
