#pragma once

#include "core/Result.h"
#include "core/db/ConnectionSettings.h"

#include <QString>
#include <QVariantMap>

#include <optional>

namespace keel {

// A saved way of reaching a keel database, as the console's connection dialog
// edits it. It holds no password on purpose: that lives in the OS keychain,
// .pgpass or PGPASSWORD, so a profile can be written to settings as it is.
struct ConnectionProfile {
    enum class Kind { Fields, Service, Uri };

    QString name;
    Kind kind = Kind::Fields;
    QString host; // empty: libpq's default (PGHOST or the local socket)
    int port = 0; // 0: libpq's default
    QString database;
    QString user;
    QString service; // a pg_service.conf entry
    QString uri;     // a libpq URI or key=value string, without a password
    QString sslMode; // empty: libpq's default (prefer)
    QString sslRootCert;
    // Optional second server (a streaming replica) for dashboards and history,
    // so the primary is spared. Who you are and where you connect otherwise
    // comes from the primary's settings.
    QString replicaDsn;

    // The validated settings for the primary; the error names the field at fault.
    Result<ConnectionSettings> primary() const;
    // The replica's settings with user, database and TLS inherited from the
    // primary where the replica DSN leaves them out; nullopt without a replica.
    Result<std::optional<ConnectionSettings>> replica() const;

    QVariantMap toMap() const;
    static ConnectionProfile fromMap(const QVariantMap &map);

    static const QStringList &sslModes();

private:
    Status checkNoNul() const;
};

} // namespace keel
