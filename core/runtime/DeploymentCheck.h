#pragma once

#include "core/Result.h"

#include <QString>
#include <QStringList>

#include <QHash>
#include <QList>
#include <QUrl>

namespace keel {

class LibpqConnection;

// One thing `keel doctor` looked at: what it found, and what to do if it is
// wrong (empty: nothing to fix).
struct Finding {
    QString subject; // "database", "login", "schema", "file /etc/keel/…", "broker"
    QString found;
    QString fix;
    bool ok() const { return fix.isEmpty(); }
};

// A unit's EnvironmentFile as systemd reads it: KEY=VALUE lines, comments
// skipped, a value in quotes taken without them (a cluster's KEEL_AMQP is
// several URLs separated by spaces). The file's error when it cannot be read.
Result<QHash<QString, QString>> readEnvironmentFile(const QString &path);

// What a service's database login is and may do, as the services need it:
// a login of keel_gateway, neither a superuser nor the schema's owner, on
// the schema this keel expects, with the service's grants.
QList<Finding> checkServiceLogin(LibpqConnection &session);

// A file a service reads (`named` by its option or variable): present and readable; if it holds a
// secret (a private key, a password), readable by its owner alone.
Finding checkServiceFile(const QString &named, const QString &path, bool secret);

// A host a service will call (`named`: what points there, e.g. "--channel"):
// reached and, over https, its certificate verified as the service verifies
// it, against `authority` when the target has a CA file of its own, else
// the process's trust (TlsSession::trustAlso). `trustOption` is the option
// that would name a private authority for it, for the fix. Plain http:// is
// checked only where the service may call it (HttpClient::allowPlainHttp).
Finding checkCallTarget(const QString &named, const QUrl &url, const QString &authority,
                        const QString &trustOption, int timeoutMs);

// Hosts the worker calls, from the database: one URL per scheme, host and
// port, the busiest first, at most `limit` of them; and the owners (merchant
// or saga ids) whose URL does not parse as a URL with a host.
struct CallTargets {
    QList<QUrl> origins;
    QList<qint64> unusable;
};
// Where active merchants' notifications go (notify_url).
Result<CallTargets> notifyTargets(LibpqConnection &session, int limit);
// The saga and TCC participants of sagas still in flight or parked, and of
// the latest sagas started: each step's action and compensation URL (a TCC
// branch's try, confirm and cancel are steps of those).
Result<CallTargets> participantTargets(LibpqConnection &session, int limit);

} // namespace keel
