#include "HaFormation.h"

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

} // namespace keel::test
