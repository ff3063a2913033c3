#pragma once

#include "core/Result.h"

#include <QList>
#include <QString>

#include <utility>

class QSqlDatabase;

namespace keel {

// What PostgreSQL users already write to reach a server: a libpq URI
// ("postgresql://user@host/db?sslmode=verify-full") or a key=value string
// ("service=keel sslmode=require"). Parsing is libpq's own (PQconninfoParse), so
// the accepted syntax is exactly libpq's; PG* variables, service files and
// .pgpass still apply to whatever the string leaves out, because libpq reads
// them when the connection is opened.
class ConnectionSettings final {
public:
    ConnectionSettings() = default;

    static Result<ConnectionSettings> parse(const QString &dsn);

    // The explicitly given keyword, or an empty string.
    QString value(const QString &keyword) const;
    bool has(const QString &keyword) const;
    void set(const QString &keyword, const QString &value);
    // Sets the keyword only where the string left it out.
    void setDefault(const QString &keyword, const QString &value);

    // For messages and logs: every keyword except the password, as key=value.
    QString redacted() const;
    // The full libpq conninfo string (password included) for code that talks
    // libpq directly. Never log it.
    QString conninfo() const;
    // A libpq URI with the password left out, for printing (KEEL_DB=...).
    QString uri() const;

    // Configures a QPSQL connection so that libpq sees the same options.
    Status applyTo(QSqlDatabase &db) const;

    const QList<std::pair<QString, QString>> &parameters() const { return m_parameters; }

    // The server is reached through a pooler in transaction mode (PgBouncer's
    // pool_mode=transaction): consecutive transactions may run on different
    // server connections, so nothing may outlive a transaction — statements
    // are sent unnamed instead of prepared once per connection. Not a libpq
    // keyword: keel's own, set from a command-line option.
    bool transactionPooled() const { return m_transactionPooled; }
    void setTransactionPooled(bool pooled) { m_transactionPooled = pooled; }

private:
    QList<std::pair<QString, QString>> m_parameters; // keyword -> value, only those given
    bool m_transactionPooled = false;
};

} // namespace keel
