#include "core/db/ChangeListener.h"

#include "core/db/ConnectionFailure.h"

#include <libpq-fe.h>

#include <poll.h>
#include <unistd.h>

#include <memory>

namespace keel {

ChangeListener::ChangeListener(ConnectionSettings settings, QStringList channels,
                               Callbacks callbacks)
    : m_settings(std::move(settings)), m_channels(std::move(channels)),
      m_callbacks(std::move(callbacks))
{
    if (::pipe(m_wake) != 0)
        m_wake[0] = m_wake[1] = -1;
}

ChangeListener::~ChangeListener()
{
    stop();
    for (const int fd : m_wake)
        if (fd >= 0)
            ::close(fd);
}

void ChangeListener::start()
{
    if (m_thread.joinable())
        return;
    m_stopping = false;
    // A stop() before this start left a byte in the pipe.
    pollfd wake{m_wake[0], POLLIN, 0};
    char drained[8];
    while (m_wake[0] >= 0 && ::poll(&wake, 1, 0) > 0 && ::read(m_wake[0], drained, 8) > 0) {
    }
    m_thread = std::thread([this] { run(); });
}

void ChangeListener::stop()
{
    m_stopping = true;
    if (m_wake[1] >= 0)
        (void)!::write(m_wake[1], "x", 1);
    if (m_thread.joinable())
        m_thread.join();
}

void ChangeListener::pause(int milliseconds)
{
    pollfd wake{m_wake[0], POLLIN, 0};
    (void)::poll(&wake, 1, milliseconds);
}

void ChangeListener::run()
{
    int backoffMs = 500;
    while (!m_stopping) {
        ConnectionSettings settings = m_settings;
        settings.setDefault(QStringLiteral("connect_timeout"), QStringLiteral("10"));
        settings.set(QStringLiteral("application_name"), QStringLiteral("keel-console-listen"));
        const std::unique_ptr<PGconn, decltype(&PQfinish)> conn(
            PQconnectdb(settings.conninfo().toUtf8().constData()), &PQfinish);
        QString problem;
        // The server's goodbye on shutdown is reported through stateChanged, not stderr.
        PQsetNoticeProcessor(
            conn.get(), [](void *, const char *) {}, nullptr);
        if (PQstatus(conn.get()) == CONNECTION_OK) {
            QByteArray listen;
            for (const QString &channel : std::as_const(m_channels)) {
                char *quoted = PQescapeIdentifier(conn.get(), channel.toUtf8().constData(),
                                                  size_t(channel.toUtf8().size()));
                listen += "LISTEN " + QByteArray(quoted) + ";";
                PQfreemem(quoted);
            }
            const std::unique_ptr<PGresult, decltype(&PQclear)> result(
                PQexec(conn.get(), listen.constData()), &PQclear);
            if (PQresultStatus(result.get()) == PGRES_COMMAND_OK) {
                backoffMs = 500;
                if (m_callbacks.stateChanged)
                    m_callbacks.stateChanged(true, {});
                if (!listenUntilDropped(conn.get()))
                    return;
            }
        }
        problem = describeConnectionFailure(QString::fromUtf8(PQerrorMessage(conn.get())));
        if (m_callbacks.stateChanged)
            m_callbacks.stateChanged(false, problem);
        pause(backoffMs);
        backoffMs = std::min(backoffMs * 2, 10000);
    }
}

bool ChangeListener::listenUntilDropped(pg_conn *conn)
{
    while (!m_stopping) {
        pollfd fds[2] = {{PQsocket(conn), POLLIN, 0}, {m_wake[0], POLLIN, 0}};
        // The timeout only bounds how long a silently dead link goes unnoticed.
        const int ready = ::poll(fds, 2, 30000);
        if (m_stopping)
            return false;
        if (ready == 0) {
            // Quiet for a while: make sure the server is still there.
            const std::unique_ptr<PGresult, decltype(&PQclear)> ping(PQexec(conn, "SELECT 1"),
                                                                     &PQclear);
            if (PQresultStatus(ping.get()) != PGRES_TUPLES_OK)
                return true;
            continue;
        }
        if (ready < 0)
            continue; // EINTR
        if (!PQconsumeInput(conn) || PQstatus(conn) != CONNECTION_OK)
            return true;
        while (PGnotify *notice = PQnotifies(conn)) {
            if (m_callbacks.notified)
                m_callbacks.notified(QString::fromUtf8(notice->relname),
                                     QString::fromUtf8(notice->extra));
            PQfreemem(notice);
        }
    }
    return false;
}

} // namespace keel
