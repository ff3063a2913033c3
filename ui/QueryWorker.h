#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"

#include <QMutex>
#include <QObject>
#include <QPointer>
#include <QSqlDatabase>
#include <QThread>
#include <QWaitCondition>

#include <deque>
#include <functional>
#include <memory>

namespace keel {

class LibpqConnection;

// The console's database thread: owns its own connection (Qt's rule: one per
// thread), takes jobs from a queue, and hands each result back to the object
// that asked, on that object's thread. If the object is gone by then, the
// result is dropped rather than delivered to a dead widget.
class QueryWorker final : public QThread {
    Q_OBJECT

public:
    explicit QueryWorker(ConnectionSettings settings, QObject *parent = nullptr);
    ~QueryWorker() override;

    template <typename T>
    void submit(QObject *receiver, std::function<Result<T>(QSqlDatabase)> job,
                std::function<void(const Result<T> &)> done)
    {
        enqueue([this, guard = QPointer<QObject>(receiver), job = std::move(job),
                 done = std::move(done)]() { deliver<T>(guard, done, withConnection<T>(job)); });
    }
    // The same for core code written on libpq (sagas, their manual actions):
    // this thread's own LibpqConnection to the same server, as the same login.
    template <typename T>
    void submitLibpq(QObject *receiver, std::function<Result<T>(LibpqConnection &)> job,
                     std::function<void(const Result<T> &)> done)
    {
        enqueue([this, guard = QPointer<QObject>(receiver), job = std::move(job),
                 done = std::move(done)]() {
            Result<LibpqConnection *> session = libpq();
            deliver<T>(guard, done, session ? job(**session) : Result<T>(session.error()));
        });
    }

    void stop();

Q_SIGNALS:
    // The connection failed or came back; the UI shows it inline.
    void connectionChanged(bool connected, const QString &message);

protected:
    void run() override;

private:
    // The guard is made on the receiver's thread and only read there: the
    // result travels through this worker object (which lives on that thread
    // and outlives its jobs) and is dropped if the receiver is gone.
    template <typename T>
    void deliver(const QPointer<QObject> &guard, const std::function<void(const Result<T> &)> &done,
                 Result<T> result)
    {
        QMetaObject::invokeMethod(
            this,
            [guard, done, result = std::move(result)]() {
                if (guard)
                    done(result);
            },
            Qt::QueuedConnection);
    }
    template <typename T>
    Result<T> withConnection(const std::function<Result<T>(QSqlDatabase)> &job)
    {
        Result<QSqlDatabase> db = connection();
        if (!db)
            return db.error();
        Result<T> result = job(*db);
        if (!result && result.error().kind == ErrorKind::Connection)
            dropConnection();
        return result;
    }
    Result<QSqlDatabase> connection();
    Result<LibpqConnection *> libpq();
    void dropConnection();
    void enqueue(std::function<void()> job);

    ConnectionSettings m_settings;
    QMutex m_lock;
    QWaitCondition m_wake;
    std::deque<std::function<void()>> m_jobs;
    bool m_connected = false;
    std::unique_ptr<LibpqConnection> m_libpq; // made and used on the worker thread only
};

} // namespace keel
