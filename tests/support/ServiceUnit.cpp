#include "ServiceUnit.h"

#include "core/runtime/DeploymentCheck.h"

#include <QFile>

#include <cstring>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace keel::test {

ServiceUnit readServiceUnit(const QString &path)
{
    ServiceUnit unit;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return unit;
    for (const QString &line : QString::fromUtf8(file.readAll()).split(u'\n')) {
        if (line.startsWith(QLatin1String("User=")))
            unit.user = line.mid(5);
        else if (line.startsWith(QLatin1String("ExecStart=")))
            unit.execStart = line.mid(10);
        else if (line.startsWith(QLatin1String("EnvironmentFile=")))
            unit.environmentFiles << line.mid(16);
        else if (line.startsWith(QLatin1String("TimeoutStopSec=")))
            unit.timeoutStopSeconds = line.mid(15).chopped(1).toInt();
    }
    return unit;
}

bool readEnvironmentFile(const QString &path, QHash<QString, QString> &into)
{
    Result<QHash<QString, QString>> read = keel::readEnvironmentFile(path);
    if (!read)
        return false;
    into.insert(*read);
    return true;
}

QStringList expandExecStart(const QString &execStart, const QHash<QString, QString> &environment)
{
    QStringList words;
    for (const QString &word : execStart.split(u' ', Qt::SkipEmptyParts)) {
        if (word.startsWith(u'$'))
            words << environment.value(word.mid(1)).split(u' ', Qt::SkipEmptyParts);
        else
            words << word;
    }
    return words;
}

NotifySocket::NotifySocket(const QString &path)
{
    m_fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    const QByteArray name = QFile::encodeName(path);
    if (m_fd < 0 || size_t(name.size()) >= sizeof address.sun_path)
        return;
    std::memcpy(address.sun_path, name.constData(), size_t(name.size()));
    m_bound = ::bind(m_fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0;
    ::chmod(name.constData(), 0666);
}

NotifySocket::~NotifySocket()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

QByteArray NotifySocket::next(int timeoutMs)
{
    pollfd waiting{m_fd, POLLIN, 0};
    if (::poll(&waiting, 1, timeoutMs) != 1)
        return {};
    char buffer[512];
    const ssize_t size = ::recv(m_fd, buffer, sizeof buffer, 0);
    return size > 0 ? QByteArray(buffer, int(size)) : QByteArray();
}

} // namespace keel::test
