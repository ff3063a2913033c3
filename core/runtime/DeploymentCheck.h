#pragma once

#include <QString>
#include <QStringList>

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

// What a service's database login is and may do, as the services need it:
// a login of keel_gateway, neither a superuser nor the schema's owner, on
// the schema this keel expects, with the service's grants.
QList<Finding> checkServiceLogin(LibpqConnection &session);

// A file a service reads (`named` by its option or variable): present and readable; if it holds a
// secret (a private key, a password), readable by its owner alone.
Finding checkServiceFile(const QString &named, const QString &path, bool secret);

} // namespace keel
