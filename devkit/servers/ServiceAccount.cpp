#include "devkit/servers/ServiceAccount.h"

#include <QDir>
#include <QFileInfo>

#include <cerrno>
#include <cstring>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace keel {
namespace {

QString userName(uid_t uid)
{
    if (const passwd *entry = getpwuid(uid))
        return QString::fromLocal8Bit(entry->pw_name);
    return QString::number(uid);
}

// Whether `uid`/`gid` may search (enter) every directory on the way to `path`.
QString firstUnreachableAncestor(const QString &path, uid_t uid, gid_t gid)
{
    QString current = QFileInfo(path).absolutePath();
    while (true) {
        struct stat info {};
        if (::stat(QFile::encodeName(current).constData(), &info) == 0) {
            const mode_t needed = info.st_uid == uid   ? S_IXUSR
                                  : info.st_gid == gid ? S_IXGRP
                                                       : S_IXOTH;
            if (!(info.st_mode & needed))
                return current;
        }
        if (current == QLatin1String("/"))
            return {};
        current = QFileInfo(current).absolutePath();
    }
}

} // namespace

Result<ServiceAccount> ServiceAccount::forServer()
{
    ServiceAccount account;
    if (::geteuid() != 0) {
        account.m_uid = ::geteuid();
        account.m_gid = ::getegid();
        account.m_name = userName(account.m_uid);
        return account;
    }
    QStringList candidates;
    if (const QString chosen = qEnvironmentVariable("KEEL_PG_USER"); !chosen.isEmpty())
        candidates << chosen;
    else
        candidates << QStringLiteral("postgres") << QStringLiteral("nobody");
    for (const QString &candidate : std::as_const(candidates)) {
        if (const passwd *entry = getpwnam(candidate.toLocal8Bit().constData())) {
            if (entry->pw_uid == 0)
                break;
            account.m_uid = entry->pw_uid;
            account.m_gid = entry->pw_gid;
            account.m_name = candidate;
            account.m_switchUser = true;
            return account;
        }
    }
    return makeError(ErrorKind::Environment,
                     QStringLiteral("running as root, and PostgreSQL will not: no unprivileged "
                                    "account (%1) to run the server as; create one or set "
                                    "KEEL_PG_USER")
                         .arg(candidates.join(QStringLiteral(", "))));
}

Status ServiceAccount::prepareDirectory(const QString &path) const
{
    const QByteArray native = QFile::encodeName(path);
    struct stat info {};
    if (::stat(native.constData(), &info) != 0) {
        if (!QDir().mkpath(path))
            return makeError(ErrorKind::Environment,
                             QStringLiteral("cannot create directory %1: %2")
                                 .arg(path, QString::fromLocal8Bit(std::strerror(errno))));
        if (m_switchUser && ::chown(native.constData(), m_uid, m_gid) != 0)
            return makeError(ErrorKind::Environment,
                             QStringLiteral("cannot hand directory %1 to user %2: %3")
                                 .arg(path, m_name, QString::fromLocal8Bit(std::strerror(errno))));
        ::chmod(native.constData(), 0700);
        ::stat(native.constData(), &info);
    }
    if (!S_ISDIR(info.st_mode))
        return makeError(ErrorKind::Environment,
                         QStringLiteral("%1 exists and is not a directory").arg(path));
    if (info.st_uid != m_uid) {
        // A root caller may hand over an empty directory it created itself.
        const bool emptyRootDir = m_switchUser && info.st_uid == 0 &&
                                  QDir(path).isEmpty(QDir::AllEntries | QDir::NoDotAndDotDot |
                                                     QDir::Hidden | QDir::System);
        if (!emptyRootDir || ::chown(native.constData(), m_uid, m_gid) != 0)
            return makeError(ErrorKind::Environment,
                             QStringLiteral("data directory %1 is owned by user %2, but the "
                                            "server runs as %3; choose a directory of your own "
                                            "with --dir")
                                 .arg(path, userName(info.st_uid), m_name));
    }
    ::chmod(native.constData(), 0700);
    if (m_switchUser) {
        const QString blocked = firstUnreachableAncestor(path, m_uid, m_gid);
        if (!blocked.isEmpty())
            return makeError(ErrorKind::Environment,
                             QStringLiteral("the server runs as user %1, which cannot enter %2 on "
                                            "the way to %3; choose a directory it can reach "
                                            "(e.g. under /var/lib or /tmp)")
                                 .arg(m_name, blocked, path));
    }
    return {};
}

void ServiceAccount::enterInChild(int deathSignal) const noexcept
{
    // A parent waiting for SIGINT/SIGTERM blocks them; the server must not inherit that.
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (m_switchUser) {
        if (::setgroups(0, nullptr) != 0 || ::setgid(m_gid) != 0 || ::setuid(m_uid) != 0)
            ::_exit(126);
    }
    // Set after the uid change, which would clear it.
    if (deathSignal != 0) {
        ::prctl(PR_SET_PDEATHSIG, deathSignal);
        if (::getppid() == 1)
            ::_exit(125); // the parent is already gone
    }
}

} // namespace keel
