#include "core/net/ClientPool.h"

#include "core/net/HttpClient.h"

#include <QString>
#include <QUrl>
#include <map>

#include <memory>

namespace keel {

HttpClient *pooledClient(const QUrl &url, int timeoutMs, const QString &authority)
{
    if (!HttpClient::refusal(url).isEmpty())
        return nullptr;
    // Bounded: a worker that has called many hosts starts over rather than
    // holding a connection to each for ever.
    thread_local std::map<QString, std::unique_ptr<HttpClient>> clients;
    const QString origin = url.adjusted(QUrl::RemovePath | QUrl::RemoveQuery |
                                        QUrl::RemoveFragment | QUrl::RemoveUserInfo)
                               .toString() +
                           u'/' + QString::number(timeoutMs) + u'/' + authority;
    std::unique_ptr<HttpClient> &client = clients[origin];
    if (!client) {
        if (clients.size() > 64) {
            clients.clear();
            return pooledClient(url, timeoutMs, authority);
        }
        client = HttpClient::forUrl(url, timeoutMs);
        if (client)
            client->setAuthority(authority);
    }
    return client.get();
}

} // namespace keel
