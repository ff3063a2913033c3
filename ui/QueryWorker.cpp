#include "ui/QueryWorker.h"

#include "core/db/LibpqConnection.h"
#include "core/db/QtSqlConnections.h"

#include <QSqlError>
#include <QSqlQuery>

namespace keel {

QueryWorker::QueryWorker(ConnectionSettings settings, QObject *parent)
    : QThread(parent), m_settings(std::move(settings))
{
    setObjectName(QStringLiteral("keel-console-db"));
}

QueryWorker::~QueryWorker()
{
    stop();
}

void QueryWorker::stop()
{
    requestInterruption();
    m_wake.wakeAll();
    wait();
}

void QueryWorker::enqueue(std::function<void()> job)
{
    QMutexLocker locker(&m_lock);
    m_jobs.push_back(std::move(job));
    m_wake.wakeOne();
}

void QueryWorker::run()
{
    while (!isInterruptionRequested()) {
        std::function<void()> job;
        {
            QMutexLocker locker(&m_lock);
            while (m_jobs.empty() && !isInterruptionRequested())
                m_wake.wait(&m_lock, 1000);
            if (isInterruptionRequested())
                break;
            job = std::move(m_jobs.front());
            m_jobs.pop_front();
        }
        job();
    }
    m_libpq.reset();
    QtSqlConnections::closeThreadConnections();
}

Result<LibpqConnection *> QueryWorker::libpq()
{
    if (m_libpq && !m_libpq->healthy())
        (void)m_libpq->reset();
    if (!m_libpq || !m_libpq->healthy()) {
        Result<LibpqConnection> opened = LibpqConnection::open(m_settings);
        if (!opened)
            return opened.error();
        m_libpq = std::make_unique<LibpqConnection>(std::move(opened).value());
    }
    return m_libpq.get();
}

Result<QSqlDatabase> QueryWorker::connection()
{
    Result<QSqlDatabase> db = QtSqlConnections::connect(m_settings, QStringLiteral("keel-console"));
    if (db) {
        // A connection that dropped since the last job reconnects here.
        QSqlQuery ping(*db);
        if (!ping.exec(QStringLiteral("SELECT 1"))) {
            db->close();
            if (!db->open())
                db = Result<QSqlDatabase>(
                    makeError(ErrorKind::Connection,
                              QtSqlConnections::describeConnectError(m_settings, db->lastError())));
        }
    }
    const bool connected = db.ok();
    if (connected != m_connected) {
        m_connected = connected;
        Q_EMIT connectionChanged(connected, connected ? QString() : db.error().message);
    }
    return db;
}

void QueryWorker::dropConnection()
{
    QtSqlConnections::closeThreadConnections();
}

} // namespace keel
