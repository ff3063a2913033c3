#include "core/db/LibpqConnection.h"

#include "core/db/ConnectionFailure.h"
#include "core/db/ConnectionSettings.h"

#include <algorithm>
#include <libpq-fe.h>

#include <optional>
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

QByteArrayView PgRows::view(int row, int column) const
{
    return {PQgetvalue(m_result.get(), row, column), PQgetlength(m_result.get(), row, column)};
}

QByteArray PgRows::bytea(int row, int column) const
{
    // Either output form: a session sharing this server connection through a
    // transaction pooler may have set bytea_output to escape (Qt's driver does).
    const QByteArray raw = value(row, column);
    size_t length = 0;
    unsigned char *decoded =
        PQunescapeBytea(reinterpret_cast<const unsigned char *>(raw.constData()), &length);
    if (!decoded)
        return {};
    QByteArray bytes(reinterpret_cast<const char *>(decoded), qsizetype(length));
    PQfreemem(decoded);
    return bytes;
}

int PgRows::affected() const
{
    return m_result ? QByteArray(PQcmdTuples(m_result.get())).toInt() : 0;
}

void LibpqConnection::Closer::operator()(pg_conn *conn) const
{
    PQfinish(conn);
}

Result<LibpqConnection> LibpqConnection::open(const ConnectionSettings &settings)
{
    LibpqConnection session;
    session.m_conninfo = settings.conninfo().toUtf8();
    // A twin is a help, never worth a long wait for a host that is gone.
    ConnectionSettings bounded = settings;
    bounded.setDefault(QStringLiteral("connect_timeout"), QStringLiteral("5"));
    session.m_twinConninfo = bounded.conninfo().toUtf8();
    session.m_redacted = settings.redacted();
    session.m_unnamedStatements = settings.transactionPooled();
    if (Status connected = session.connect(); !connected)
        return connected.error();
    return session;
}

Result<LibpqConnection> LibpqConnection::openTwin() const
{
    LibpqConnection twin;
    twin.m_conninfo = m_twinConninfo;
    twin.m_twinConninfo = m_twinConninfo;
    twin.m_redacted = m_redacted;
    twin.m_unnamedStatements = m_unnamedStatements;
    if (Status connected = twin.connect(); !connected)
        return connected.error();
    return twin;
}

Status LibpqConnection::connect()
{
    m_conn.reset(PQconnectdb(m_conninfo.constData()));
    if (PQstatus(m_conn.get()) != CONNECTION_OK)
        return makeError(ErrorKind::Connection,
                         QStringLiteral("cannot connect to PostgreSQL (%1): %2")
                             .arg(m_redacted, describeConnectionFailure(QString::fromUtf8(
                                                  PQerrorMessage(m_conn.get())))));
    PQsetNoticeProcessor(m_conn.get(), &ignoreNotice, nullptr);
    m_identity =
        QStringLiteral("%1:%2/%3")
            .arg(QString::fromUtf8(PQhost(m_conn.get())), QString::fromUtf8(PQport(m_conn.get())),
                 QString::fromUtf8(PQdb(m_conn.get())));
    return {};
}

Error LibpqConnection::failure(pg_result *result)
{
    const char *state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
    m_lastSqlState = QString::fromLatin1(state ? state : "");
    const QString message = result ? QString::fromUtf8(PQresultErrorMessage(result)).simplified()
                                   : QString::fromUtf8(PQerrorMessage(m_conn.get())).simplified();
    const bool lost = PQstatus(m_conn.get()) != CONNECTION_OK;
    if (lost && m_lastSqlState.isEmpty())
        m_lastSqlState = QString::fromLatin1(ErrorCode::ConnectionLost);
    return codedError(lost ? ErrorKind::Connection : ErrorKind::Failed, m_lastSqlState,
                      message.isEmpty() ? QStringLiteral("connection lost") : message);
}

Status LibpqConnection::exec(const QByteArray &sql)
{
    auto result = own(PQexec(m_conn.get(), sql.constData()));
    const ExecStatusType status = PQresultStatus(result.get());
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
        m_lastSqlState.clear();
        return {};
    }
    return failure(result.get());
}

Result<QString> LibpqConnection::scalar(const QByteArray &sql)
{
    auto result = own(PQexec(m_conn.get(), sql.constData()));
    if (PQresultStatus(result.get()) == PGRES_COMMAND_OK)
        return makeError(ErrorKind::Usage,
                         QStringLiteral("the statement returns no rows; run it with exec()"));
    if (PQresultStatus(result.get()) != PGRES_TUPLES_OK)
        return failure(result.get());
    m_lastSqlState.clear();
    if (PQntuples(result.get()) > 0 && PQnfields(result.get()) > 0 &&
        !PQgetisnull(result.get(), 0, 0))
        return QString::fromUtf8(PQgetvalue(result.get(), 0, 0));
    return QString();
}

Result<QByteArray> LibpqConnection::prepared(const QByteArray &sql, int parameters)
{
    if (m_unnamedStatements)
        return QByteArray(); // parsed with each execution, on whichever server runs it
    QByteArray name = m_prepared.value(sql);
    if (!name.isEmpty())
        return name;
    name = "keel_" + QByteArray::number(m_prepared.size() + 1);
    auto result =
        own(PQprepare(m_conn.get(), name.constData(), sql.constData(), parameters, nullptr));
    if (PQresultStatus(result.get()) != PGRES_COMMAND_OK)
        return failure(result.get());
    m_prepared.insert(sql, name);
    return name;
}

void LibpqConnection::beginPipelined()
{
    m_queue.clear();
    m_pipelining = true;
}

void LibpqConnection::discardPipelined()
{
    m_queue.clear();
    m_pipelining = false;
}

Status LibpqConnection::commitPipelined()
{
    const QList<Queued> queue = std::move(m_queue);
    discardPipelined();
    PGconn *conn = m_conn.get();
    if (PQenterPipelineMode(conn) != 1)
        return failure(nullptr);
    bool sent = PQsendQueryParams(conn, "BEGIN", 0, nullptr, nullptr, nullptr, nullptr, 0) == 1;
    for (const Queued &statement : queue) {
        std::vector<const char *> values;
        for (const QByteArray &param : statement.params)
            values.push_back(param.isNull() ? nullptr : param.constData());
        const int count = int(statement.params.size());
        sent = sent && (statement.name.isEmpty()
                            ? PQsendQueryParams(conn, statement.sql.constData(), count, nullptr,
                                                values.data(), nullptr, nullptr, 0)
                            : PQsendQueryPrepared(conn, statement.name.constData(), count,
                                                  values.data(), nullptr, nullptr, 0)) == 1;
    }
    sent = sent && PQsendQueryParams(conn, "COMMIT", 0, nullptr, nullptr, nullptr, nullptr, 0) == 1;
    sent = sent && PQpipelineSync(conn) == 1;
    std::optional<Error> firstError;
    if (!sent)
        firstError = failure(nullptr);
    // One result (then a null) per command, then the sync marker.
    const qsizetype commands = sent ? queue.size() + 2 : 0;
    for (qsizetype i = 0; i < commands; ++i) {
        auto result = own(PQgetResult(conn));
        if (!result) {
            firstError = firstError.value_or(failure(nullptr));
            break;
        }
        const ExecStatusType status = PQresultStatus(result.get());
        if (status == PGRES_FATAL_ERROR && !firstError)
            firstError = failure(result.get());
        while (PGresult *extra = PQgetResult(conn))
            PQclear(extra);
    }
    if (sent) {
        while (PGresult *tail = PQgetResult(conn)) {
            const bool synced = PQresultStatus(tail) == PGRES_PIPELINE_SYNC;
            PQclear(tail);
            if (synced)
                break;
        }
    }
    if (PQexitPipelineMode(conn) != 1) {
        // Results the server never sent (it went away mid-pipeline): libpq stays
        // in pipeline mode, where every later statement fails. Connect afresh.
        m_broken = true;
        firstError = firstError.value_or(failure(nullptr));
        return *firstError;
    }
    if (firstError) {
        // A failure before COMMIT leaves the transaction open and aborted.
        if (PQtransactionStatus(conn) != PQTRANS_IDLE)
            (void)exec("ROLLBACK");
        return *firstError;
    }
    m_lastSqlState.clear();
    return {};
}

Result<PgRows> LibpqConnection::query(const QByteArray &sql, const QByteArrayList &params)
{
    Result<QByteArray> statement = prepared(sql, int(params.size()));
    if (!statement)
        return statement.error();
    const QByteArray &name = *statement;
    if (m_pipelining) {
        m_queue.append({name, name.isEmpty() ? sql : QByteArray(), params});
        return PgRows();
    }
    std::vector<const char *> values;
    values.reserve(size_t(params.size()));
    for (const QByteArray &param : params)
        values.push_back(param.isNull() ? nullptr : param.constData());
    const int count = int(params.size());
    auto result = own(name.isEmpty() ? PQexecParams(m_conn.get(), sql.constData(), count, nullptr,
                                                    values.data(), nullptr, nullptr, 0)
                                     : PQexecPrepared(m_conn.get(), name.constData(), count,
                                                      values.data(), nullptr, nullptr, 0));
    const ExecStatusType status = PQresultStatus(result.get());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
        return failure(result.get());
    m_lastSqlState.clear();
    PgRows rows;
    rows.m_result = std::move(result);
    return rows;
}

Status LibpqConnection::copyIn(const QByteArray &copySql, const QByteArray &data)
{
    if (Status begun = beginCopyIn(copySql); !begun)
        return begun;
    if (Status fed = putCopyData(data); !fed) {
        abandonCopyIn();
        return fed;
    }
    return endCopyIn();
}

Status LibpqConnection::beginCopyIn(const QByteArray &copySql)
{
    auto started = own(PQexec(m_conn.get(), copySql.constData()));
    if (PQresultStatus(started.get()) != PGRES_COPY_IN)
        return failure(started.get());
    return {};
}

Status LibpqConnection::putCopyData(const QByteArray &data)
{
    // libpq takes at most INT_MAX bytes at a time.
    constexpr qsizetype Part = qsizetype(1) << 30;
    for (qsizetype at = 0; at < data.size(); at += Part)
        if (PQputCopyData(m_conn.get(), data.constData() + at,
                          int(std::min(Part, data.size() - at))) != 1) {
            Error unsent = failure(nullptr);
            // Never left without a code: a caller reading a file would take
            // an error without one for the file's.
            if (unsent.code.isEmpty())
                unsent.code = QString::fromLatin1(ErrorCode::CopyNotSent);
            // The server may have refused the COPY already: its reason, if so.
            Status outcome = copyOutcome();
            return outcome ? Status{unsent} : outcome;
        }
    return {};
}

void LibpqConnection::abandonCopyIn()
{
    if (PQputCopyEnd(m_conn.get(), "abandoned by the client") == 1)
        (void)copyOutcome();
    else
        m_broken = true; // still copying: nothing else can run on it
}

Status LibpqConnection::endCopyIn()
{
    if (PQputCopyEnd(m_conn.get(), nullptr) != 1)
        return failure(nullptr);
    return copyOutcome();
}

Status LibpqConnection::copyOutcome()
{
    std::optional<Error> error;
    bool ended = false;
    while (PGresult *result = PQgetResult(m_conn.get())) {
        const ExecStatusType status = PQresultStatus(result);
        if (status != PGRES_COMMAND_OK && status != PGRES_COPY_IN && !error)
            error = failure(result);
        PQclear(result);
        // libpq still copying (it could not send): end the COPY, once, so
        // that the server answers; a connection that cannot is given up.
        if (status == PGRES_COPY_IN) {
            if (ended || PQputCopyEnd(m_conn.get(), "abandoned by the client") != 1) {
                m_broken = true;
                if (!error)
                    error = failure(nullptr);
                break;
            }
            ended = true;
        }
    }
    if (error)
        return *error;
    return {};
}

bool LibpqConnection::healthy() const
{
    return m_conn && !m_pipelining && !m_broken && PQstatus(m_conn.get()) == CONNECTION_OK &&
           PQpipelineStatus(m_conn.get()) == PQ_PIPELINE_OFF &&
           PQtransactionStatus(m_conn.get()) == PQTRANS_IDLE;
}

Status LibpqConnection::ensureHealthy()
{
    return healthy() ? Status() : reset();
}

bool LibpqConnection::inTransaction() const
{
    return m_pipelining || PQtransactionStatus(m_conn.get()) != PQTRANS_IDLE;
}

Status LibpqConnection::reset()
{
    if (m_broken || PQpipelineStatus(m_conn.get()) != PQ_PIPELINE_OFF) {
        m_conn.reset(PQconnectdb(m_conninfo.constData()));
        PQsetNoticeProcessor(m_conn.get(), &ignoreNotice, nullptr);
    } else
        PQreset(m_conn.get());
    m_broken = false;
    m_pipelining = false;
    m_queue.clear();
    m_prepared.clear();
    if (PQstatus(m_conn.get()) != CONNECTION_OK)
        return makeError(ErrorKind::Connection,
                         QString::fromUtf8(PQerrorMessage(m_conn.get())).simplified());
    return {};
}

// Written straight into the bytes sent: a day's run passes a million
// references, and a quoted copy of each as a string besides doubled what it held.
QByteArray LibpqConnection::arrayParam(const QStringList &items)
{
    qsizetype size = 2;
    for (const QString &item : items)
        size += item.size() + 3;
    QByteArray array;
    array.reserve(size);
    array += '{';
    for (qsizetype i = 0; i < items.size(); ++i) {
        if (i > 0)
            array += ',';
        array += '"';
        for (const char byte : items.at(i).toUtf8()) {
            if (byte == '\\' || byte == '"')
                array += '\\';
            array += byte;
        }
        array += '"';
    }
    array += '}';
    return array;
}

bool serverAccepting(const ConnectionSettings &settings)
{
    return PQping(settings.conninfo().toUtf8().constData()) == PQPING_OK;
}

} // namespace keel
