#include "core/db/PgSession.h"

#include "core/db/ConnectionSettings.h"

#include <libpq-fe.h>

#include <vector>

namespace keel {
namespace {

void ignoreNotice(void *, const char *) {}

std::shared_ptr<pg_result> own(PGresult *result)
{
    return {result, &PQclear};
}

} // namespace

int PgRows::size() const
{
    return m_result ? PQntuples(m_result.get()) : 0;
}
int PgRows::columns() const
{
    return m_result ? PQnfields(m_result.get()) : 0;
}
bool PgRows::isNull(int row, int column) const
{
    return PQgetisnull(m_result.get(), row, column);
}

QByteArray PgRows::value(int row, int column) const
{
    if (isNull(row, column))
        return {};
    return QByteArray(PQgetvalue(m_result.get(), row, column),
                      PQgetlength(m_result.get(), row, column));
}

QByteArray PgRows::bytea(int row, int column) const
{
    const QByteArray raw = value(row, column);
    return raw.startsWith("\\x") ? QByteArray::fromHex(raw.mid(2)) : raw;
}

int PgRows::affected() const
{
    return m_result ? QByteArray(PQcmdTuples(m_result.get())).toInt() : 0;
}

void PgSession::Closer::operator()(pg_conn *conn) const
{
    PQfinish(conn);
}

Result<PgSession> PgSession::open(const ConnectionSettings &settings)
{
    PgSession session;
    session.m_conn.reset(PQconnectdb(settings.conninfo().toUtf8().constData()));
    if (PQstatus(session.m_conn.get()) != CONNECTION_OK)
        return makeError(
            ErrorKind::Connection,
            QStringLiteral("cannot connect to PostgreSQL (%1): %2")
                .arg(settings.redacted(),
                     QString::fromUtf8(PQerrorMessage(session.m_conn.get())).simplified()));
    PQsetNoticeProcessor(session.m_conn.get(), &ignoreNotice, nullptr);
    session.m_identity = QStringLiteral("%1:%2/%3")
                             .arg(QString::fromUtf8(PQhost(session.m_conn.get())),
                                  QString::fromUtf8(PQport(session.m_conn.get())),
                                  QString::fromUtf8(PQdb(session.m_conn.get())));
    return session;
}

Error PgSession::failure(pg_result *result)
{
    const char *state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    m_lastSqlState = QString::fromLatin1(state ? state : "");
    const QString message = result ? QString::fromUtf8(PQresultErrorMessage(result)).simplified()
                                   : QString::fromUtf8(PQerrorMessage(m_conn.get())).simplified();
    const bool lost = PQstatus(m_conn.get()) != CONNECTION_OK;
    return makeError(lost ? ErrorKind::Connection : ErrorKind::Failed,
                     message.isEmpty() ? QStringLiteral("connection lost") : message);
}

Status PgSession::exec(const QByteArray &sql)
{
    auto result = own(PQexec(m_conn.get(), sql.constData()));
    const ExecStatusType status = PQresultStatus(result.get());
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
        m_lastSqlState.clear();
        return {};
    }
    return failure(result.get());
}

Result<QString> PgSession::scalar(const QByteArray &sql)
{
    auto result = own(PQexec(m_conn.get(), sql.constData()));
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK)
        return failure(result.get());
    m_lastSqlState.clear();
    if (PQntuples(result.get()) > 0 && PQnfields(result.get()) > 0 &&
        !PQgetisnull(result.get(), 0, 0))
        return QString::fromUtf8(PQgetvalue(result.get(), 0, 0));
    return QString();
}

Result<PgRows> PgSession::query(const QByteArray &sql, const QByteArrayList &params)
{
    QByteArray name = m_prepared.value(sql);
    if (name.isEmpty()) {
        name = "keel_" + QByteArray::number(m_prepared.size() + 1);
        auto prepared = own(PQprepare(m_conn.get(), name.constData(), sql.constData(),
                                      int(params.size()), nullptr));
        if (PQresultStatus(prepared.get()) != PGRES_COMMAND_OK)
            return failure(prepared.get());
        m_prepared.insert(sql, name);
    }
    std::vector<const char *> values;
    values.reserve(size_t(params.size()));
    for (const QByteArray &param : params)
        values.push_back(param.isNull() ? nullptr : param.constData());
    auto result = own(PQexecPrepared(m_conn.get(), name.constData(), int(params.size()),
                                     values.data(), nullptr, nullptr, 0));
    const ExecStatusType status = PQresultStatus(result.get());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
        return failure(result.get());
    m_lastSqlState.clear();
    PgRows rows;
    rows.m_result = std::move(result);
    return rows;
}

bool PgSession::healthy() const
{
    return m_conn && PQstatus(m_conn.get()) == CONNECTION_OK &&
           PQtransactionStatus(m_conn.get()) == PQTRANS_IDLE;
}

Status PgSession::reset()
{
    PQreset(m_conn.get());
    m_prepared.clear();
    if (PQstatus(m_conn.get()) != CONNECTION_OK)
        return makeError(ErrorKind::Connection,
                         QString::fromUtf8(PQerrorMessage(m_conn.get())).simplified());
    return {};
}

bool serverAccepting(const ConnectionSettings &settings)
{
    return PQping(settings.conninfo().toUtf8().constData()) == PQPING_OK;
}

} // namespace keel
