#include "HaFormation.h"

#include "core/db/LibpqConnection.h"
#include "devkit/servers/ServiceAccount.h"

#include <QStringList>

namespace keel::test {

ConnectionSettings HaFormation::multiHostSettings(const std::vector<int> &ports,
                                                  const QString &database)
{
    QStringList hosts, portList;
    for (const int port : ports) {
        hosts << QStringLiteral("127.0.0.1");
        portList << QString::number(port);
    }
    ConnectionSettings settings;
    settings.set(QStringLiteral("host"), hosts.join(u','));
    settings.set(QStringLiteral("port"), portList.join(u','));
    settings.set(QStringLiteral("dbname"), database);
    if (Result<ServiceAccount> account = ServiceAccount::forServer(); account)
        settings.set(QStringLiteral("user"), account->name());
    settings.set(QStringLiteral("target_session_attrs"), QStringLiteral("read-write"));
    settings.set(QStringLiteral("connect_timeout"), QStringLiteral("3"));
    return settings;
}

bool HaFormation::replicatesSynchronously(const ConnectionSettings &primary)
{
    Result<LibpqConnection> session = LibpqConnection::open(primary);
    if (!session)
        return false;
    Result<QString> streaming = session->scalar(
        "SELECT current_setting('synchronous_standby_names') <> '' AND EXISTS (SELECT 1 FROM "
        "pg_stat_replication WHERE state = 'streaming' AND sync_state IN ('sync', 'quorum'))");
    return streaming && *streaming == QLatin1String("t");
}

} // namespace keel::test
