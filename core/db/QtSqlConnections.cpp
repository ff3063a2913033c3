#include "core/db/QtSqlConnections.h"

#include "core/db/ConnectionFailure.h"

#include "core/db/ConnectionSettings.h"

#include <QCryptographicHash>
#include <QSqlDriver>
#include <QSqlError>
#include <QSqlQuery>
#include <QStringList>
#include <QThread>
#include <QThreadStorage>

#include <libpq-fe.h>

namespace keel {
namespace {

// Connections opened by this thread, removed when the thread exits. Held in
// QThreadStorage rather than thread_local: Qt destroys it before
// QThread::wait() returns, where a thread_local destructor may run later.
struct ThreadConnections {
    QStringList names;
    ~ThreadConnections()
    {
        for (const QString &name : std::as_const(names))
            QSqlDatabase::removeDatabase(name);
    }
};
QThreadStorage<ThreadConnections *> t_connections;

QStringList &threadConnectionNames()
{
    if (!t_connections.hasLocalData())
        t_connections.setLocalData(new ThreadConnections);
    return t_connections.localData()->names;
}

QString connectionName(const ConnectionSettings &settings, const QString &applicationName)
{
    const QByteArray key = (settings.conninfo() + u'|' + applicationName).toUtf8();
    const QByteArray digest = QCryptographicHash::hash(key, QCryptographicHash::Sha256).toHex();
    return QStringLiteral("keel-%1-%2")
        .arg(QString::fromLatin1(digest.left(16)))
        .arg(reinterpret_cast<quintptr>(QThread::currentThread()), 0, 16);
}

QString oneLine(QString text)
{
    text.replace(u'\n', u' ');
    text.replace(u'\t', u' ');
    return text.simplified();
}

PGconn *pgConnection(QSqlDatabase &db)
{
    const QVariant handle = db.driver()->handle();
    // The driver registers the type under either spelling, depending on how
    // it was built.
    if (!handle.isValid() ||
        (qstrcmp(handle.typeName(), "PGconn*") != 0 && qstrcmp(handle.typeName(), "pg_conn*") != 0))
        return nullptr;
    return *static_cast<PGconn *const *>(handle.constData());
}

} // namespace

Result<QSqlDatabase> QtSqlConnections::connect(const ConnectionSettings &settings,
                                               const QString &applicationName)
{
    const QString name = connectionName(settings, applicationName);
    if (QSqlDatabase::contains(name)) {
        QSqlDatabase db = QSqlDatabase::database(name, false);
        if (db.isOpen())
            return db;
        if (db.open())
            return db;
        return makeError(ErrorKind::Connection, describeConnectError(settings, db.lastError()));
    }

    if (!QSqlDatabase::isDriverAvailable(QStringLiteral("QPSQL")))
        return makeError(ErrorKind::Environment,
                         QStringLiteral("Qt's PostgreSQL driver (QPSQL) is not installed; install "
                                        "the Debian package libqt6sql6-psql"));

    ConnectionSettings effective = settings;
    if (!effective.has(QStringLiteral("application_name")))
        effective.set(QStringLiteral("application_name"), applicationName);
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QPSQL"), name);
    threadConnectionNames() << name;
    db.setNumericalPrecisionPolicy(QSql::HighPrecision);
    if (Status applied = effective.applyTo(db); !applied)
        return applied.error();
    if (!db.open())
        return makeError(ErrorKind::Connection, describeConnectError(settings, db.lastError()));

    QSqlQuery setup(db);
    if (!setup.exec(QStringLiteral("SET search_path TO keel, public")) ||
        !setup.exec(QStringLiteral("SET client_min_messages TO warning")))
        return makeError(ErrorKind::Connection,
                         QStringLiteral("connected, but could not set search_path: %1")
                             .arg(oneLine(setup.lastError().databaseText())));
    return db;
}

void QtSqlConnections::closeThreadConnections()
{
    QStringList &names = threadConnectionNames();
    for (const QString &name : std::as_const(names))
        QSqlDatabase::removeDatabase(name);
    names.clear();
}

QString QtSqlConnections::describeConnectError(const ConnectionSettings &settings,
                                               const QSqlError &error)
{
    const QString reason = describeConnectionFailure(
        error.databaseText().isEmpty() ? error.text() : error.databaseText());
    const QString hint = whatToCheck(classifyConnectionRefusal(settings), settings);
    return QStringLiteral("cannot connect to PostgreSQL (%1): %2; %3")
        .arg(settings.redacted(), reason, hint);
}

QString QtSqlConnections::sqlState(const QSqlError &error)
{
    return error.nativeErrorCode();
}

Status QtSqlConnections::execScript(QSqlDatabase &db, const QByteArray &sql)
{
    PGconn *conn = pgConnection(db);
    if (!conn)
        return makeError(ErrorKind::Failed, QStringLiteral("not a PostgreSQL connection"));
    PGresult *result = PQexec(conn, sql.constData());
    const ExecStatusType status = PQresultStatus(result);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
        PQclear(result);
        return {};
    }
    const char *state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
    const QString code = QString::fromLatin1(state ? state : "");
    QString message = oneLine(QString::fromUtf8(PQresultErrorMessage(result)));
    if (const char *position = PQresultErrorField(result, PG_DIAG_STATEMENT_POSITION)) {
        const int offset = QByteArray(position).toInt();
        const int line = sql.left(offset).count('\n') + 1;
        message += QStringLiteral(" (at line %1)").arg(line);
    }
    PQclear(result);
    return codedError(ErrorKind::Failed, code, message);
}

Status QtSqlConnections::exec(QSqlQuery &query, const QString &sql)
{
    if (query.exec(sql))
        return {};
    return codedError(ErrorKind::Failed, sqlState(query.lastError()),
                      oneLine(query.lastError().databaseText()));
}

Status QtSqlConnections::exec(QSqlQuery &query)
{
    if (query.exec())
        return {};
    return codedError(ErrorKind::Failed, sqlState(query.lastError()),
                      oneLine(query.lastError().databaseText()));
}

} // namespace keel
