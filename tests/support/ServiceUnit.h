#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QStringList>

// A systemd unit as keel's tests run it where systemd itself does not: its
// ExecStart line, the environment its EnvironmentFile= lines give, and the
// socket systemd would listen on for sd_notify.
namespace keel::test {

struct ServiceUnit {
    QString user;
    QString execStart;
    QStringList environmentFiles;
    int timeoutStopSeconds = 90;
};

// The lines of the unit at `path` that starting and stopping it depend on.
ServiceUnit readServiceUnit(const QString &path);

// Adds an EnvironmentFile's variables to `into` (keel::readEnvironmentFile).
bool readEnvironmentFile(const QString &path, QHash<QString, QString> &into);

// ExecStart's words, as systemd expands them: $NAME splits on whitespace.
QStringList expandExecStart(const QString &execStart, const QHash<QString, QString> &environment);

// The datagram socket systemd listens on for sd_notify messages; anyone may
// write to it, as the service runs as another user.
class NotifySocket {
public:
    explicit NotifySocket(const QString &path);
    ~NotifySocket();
    NotifySocket(const NotifySocket &) = delete;
    NotifySocket &operator=(const NotifySocket &) = delete;

    bool bound() const { return m_bound; }
    // The next message, or an empty one after `timeoutMs`.
    QByteArray next(int timeoutMs);

private:
    int m_fd = -1;
    bool m_bound = false;
};

} // namespace keel::test
