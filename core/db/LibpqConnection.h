#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QByteArrayList>
#include <QHash>
#include <QString>
#include <QStringList>

#include <memory>

struct pg_conn;
struct pg_result;

namespace keel {

class ConnectionSettings;

// The rows of a finished statement (text format).
class PgRows final {
public:
    PgRows() = default;
    int size() const;
    int columns() const;
    bool isNull(int row, int column) const;
    QByteArray value(int row, int column) const;
    // The field where libpq holds it, valid while these rows live: reading a
    // million rows without copying each field first.
    QByteArrayView view(int row, int column) const;
    QString text(int row, int column) const { return QString::fromUtf8(view(row, column)); }
    qint64 toInt64(int row, int column) const { return view(row, column).toLongLong(); }
    // bytea in either of PostgreSQL's output forms (hex, escape), decoded.
    QByteArray bytea(int row, int column) const;
    // Affected rows of INSERT/UPDATE/DELETE.
    int affected() const;

private:
    friend class LibpqConnection;
    std::shared_ptr<pg_result> m_result;
};

// A plain libpq connection. The gateway's hot path uses one per worker thread:
// statements are prepared once per connection and then cost one round trip.
// Also used for administrative work (creating databases, readiness checks).
class LibpqConnection final {
public:
    static Result<LibpqConnection> open(const ConnectionSettings &settings);
    // A new session to the same server and database as the same login: a
    // second reader for work one session would do one statement at a time.
    // It waits at most 5 s to connect unless the settings say otherwise.
    Result<LibpqConnection> openTwin() const;

    // Runs one or more statements with the simple protocol.
    Status exec(const QByteArray &sql);
    // The first column of the first row, or an empty string.
    Result<QString> scalar(const QByteArray &sql);
    // One statement with parameters ($1, $2, ...), prepared on first use.
    // A null QByteArray is SQL NULL.
    Result<PgRows> query(const QByteArray &sql, const QByteArrayList &params = {});

    // COPY ... FROM STDIN with `data` (text format rows).
    Status copyIn(const QByteArray &copySql, const QByteArray &data);
    // The same in parts, so that the server stores rows while the caller is
    // still producing them: begun, fed any number of times, then ended (the
    // COPY's outcome) or abandoned (the server refuses it, and the caller's
    // transaction is then failed).
    Status beginCopyIn(const QByteArray &copySql);
    Status putCopyData(const QByteArray &data);
    Status endCopyIn();
    void abandonCopyIn();

    // Pipelined transactions: after beginPipelined(), query() only queues its
    // statement (preparing it if needed) and returns no rows; commitPipelined()
    // sends BEGIN, the statements and COMMIT in one round trip and reports the
    // first error (after which nothing was committed). For transactions whose
    // statements need no results: guards raise instead of returning counts.
    void beginPipelined();
    bool pipelining() const { return m_pipelining; }
    Status commitPipelined();
    void discardPipelined();

    // SQLSTATE of the last failed statement ("23505"), empty after success.
    QString lastSqlState() const { return m_lastSqlState; }
    // Whether the connection is usable; reset() reconnects.
    bool healthy() const;
    // Healthy, or reset now: why it is still not usable, if it is not. What
    // every background loop does before a pass.
    Status ensureHealthy();
    bool inTransaction() const;
    Status reset();

    // Which server and database this session talks to, for per-database caches.
    const QString &identity() const { return m_identity; }

    // A text[] parameter, each element double-quoted and escaped.
    static QByteArray arrayParam(const QStringList &items);
    // Quotes bytes as a bytea parameter.
    static QByteArray byteaParam(const QByteArray &bytes) { return "\\x" + bytes.toHex(); }

private:
    Status connect();
    // What the server said of the COPY under way, once it has said all.
    Status copyOutcome();
    struct Closer {
        void operator()(pg_conn *conn) const;
    };
    Error failure(pg_result *result);

    std::unique_ptr<pg_conn, Closer> m_conn;
    Result<QByteArray> prepared(const QByteArray &sql, int parameters);

    QHash<QByteArray, QByteArray> m_prepared; // sql -> statement name
    struct Queued {
        QByteArray name; // empty: unnamed, `sql` parsed with the statement
        QByteArray sql;
        QByteArrayList params;
    };
    QList<Queued> m_queue;
    bool m_pipelining = false;
    QString m_lastSqlState;
    QString m_identity;
    QByteArray m_conninfo;            // to connect afresh when the link's state is unknown
    QByteArray m_twinConninfo;        // the same, with a bounded connect_timeout
    QString m_redacted;               // the settings without secrets, for errors
    bool m_unnamedStatements = false; // behind a transaction pooler
    bool m_broken = false;            // a pipeline could not be closed: the link is unusable
};

// Whether a server answers at the settings' address (libpq's PQping).
bool serverAccepting(const ConnectionSettings &settings);

} // namespace keel
