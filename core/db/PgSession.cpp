#include "core/db/PgSession.h"

#include "core/db/ConnectionSettings.h"

#include <libpq-fe.h>

namespace keel {

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
    return session;
}

Status PgSession::exec(const QByteArray &sql)
{
    PGresult *result = PQexec(m_conn.get(), sql.constData());
    const ExecStatusType status = PQresultStatus(result);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
        PQclear(result);
        m_lastSqlState.clear();
        return {};
    }
    const char *state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
    m_lastSqlState = QString::fromLatin1(state ? state : "");
    const QString message = QString::fromUtf8(PQresultErrorMessage(result)).simplified();
    PQclear(result);
    return makeError(ErrorKind::Failed, message);
}

Result<QString> PgSession::scalar(const QByteArray &sql)
{
    PGresult *result = PQexec(m_conn.get(), sql.constData());
    if (PQresultStatus(result) != PGRES_TUPLES_OK) {
        const char *state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
        m_lastSqlState = QString::fromLatin1(state ? state : "");
        const QString message = QString::fromUtf8(PQresultErrorMessage(result)).simplified();
        PQclear(result);
        return makeError(ErrorKind::Failed, message);
    }
    QString value;
    if (PQntuples(result) > 0 && PQnfields(result) > 0 && !PQgetisnull(result, 0, 0))
        value = QString::fromUtf8(PQgetvalue(result, 0, 0));
    PQclear(result);
    return value;
}

bool serverAccepting(const ConnectionSettings &settings)
{
    return PQping(settings.conninfo().toUtf8().constData()) == PQPING_OK;
}

} // namespace keel
