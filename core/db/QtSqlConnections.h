#pragma once

#include "core/Result.h"

#include <QSqlDatabase>

class QSqlError;
class QSqlQuery;

namespace keel {

class ConnectionSettings;

// keel's connections through Qt SQL (QPSQL): what the console reads and the
// guarded actions it runs (read/, ops/), and the migrator. The services'
// request paths use libpq directly (LibpqConnection). Qt's rule is
// one QSqlDatabase per thread: this hands each thread its own named
// connection for a given set of settings, opened on first use and removed
// when the thread ends.
class QtSqlConnections final {
public:
    QtSqlConnections() = delete;

    // This thread's connection for the settings, opened if needed. The
    // connection reports NUMERIC as text (never double) and uses search_path keel.
    static Result<QSqlDatabase> connect(const ConnectionSettings &settings,
                                        const QString &applicationName = QStringLiteral("keel"));

    // Closes and forgets every connection this thread opened.
    static void closeThreadConnections();

    // One line for a failed open: the libpq reason plus what to check, which
    // comes from asking the server again (classifyConnectionRefusal).
    static QString describeConnectError(const ConnectionSettings &settings, const QSqlError &error);

    // The SQLSTATE of a failed statement ("42501"), empty if none.
    static QString sqlState(const QSqlError &error);

    // Runs a script that may hold several statements (a migration file) through
    // libpq directly, since QSqlQuery prepares one statement at a time.
    static Status execScript(QSqlDatabase &db, const QByteArray &sql);

    // Runs one statement; the error carries the server's message.
    static Status exec(QSqlQuery &query, const QString &sql);
    static Status exec(QSqlQuery &query); // already prepared and bound
};

} // namespace keel
