#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QString>

#include <memory>

struct pg_conn;

namespace keel {

class ConnectionSettings;

// A plain libpq connection for administrative work that needs no Qt SQL
// connection: creating databases, readiness checks, test set-up.
class PgSession final {
public:
    static Result<PgSession> open(const ConnectionSettings &settings);

    // Runs one or more statements; the error carries the SQLSTATE in front.
    Status exec(const QByteArray &sql);
    // The first column of the first row, or an empty string.
    Result<QString> scalar(const QByteArray &sql);
    // SQLSTATE of the last failed statement.
    QString lastSqlState() const { return m_lastSqlState; }

private:
    struct Closer {
        void operator()(pg_conn *conn) const;
    };
    std::unique_ptr<pg_conn, Closer> m_conn;
    QString m_lastSqlState;
};

// Whether a server answers at the settings' address (libpq's PQping).
bool serverAccepting(const ConnectionSettings &settings);

} // namespace keel
