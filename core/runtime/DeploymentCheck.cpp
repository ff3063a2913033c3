#include "core/runtime/DeploymentCheck.h"

#include "core/db/LibpqConnection.h"
#include "core/db/SchemaCheck.h"
#include "core/net/HttpClient.h"

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QSet>
#include <QUrl>

#include <algorithm>
#include <memory>

namespace keel {

Result<QHash<QString, QString>> readEnvironmentFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return makeError(ErrorKind::Environment, file.errorString());
    QHash<QString, QString> environment;
    for (const QString &line : QString::fromUtf8(file.readAll()).split(u'\n')) {
        const qsizetype equals = line.indexOf(u'=');
        if (line.trimmed().startsWith(u'#') || equals <= 0)
            continue;
        QString value = line.mid(equals + 1).trimmed();
        if (value.size() >= 2 && (value.front() == u'"' || value.front() == u'\'') &&
            value.back() == value.front())
            value = value.mid(1, value.size() - 2);
        environment.insert(line.left(equals).trimmed(), value);
    }
    return environment;
}

QList<Finding> checkServiceLogin(LibpqConnection &session)
{
    QList<Finding> findings;
    Result<PgRows> who = session.query(
        "SELECT current_user, r.rolsuper, pg_has_role(current_user, 'keel_gateway', 'MEMBER'), "
        "  pg_has_role(current_user, 'keel_owner', 'MEMBER'), "
        "  has_table_privilege('keel.charges', 'INSERT'), "
        "  has_table_privilege('keel.ledger_entries', 'DELETE') "
        "FROM pg_roles r WHERE r.rolname = current_user");
    if (!who || who->size() != 1)
        return {{QStringLiteral("login"), QString(),
                 QStringLiteral("cannot read who the login is: %1")
                     .arg(who ? QStringLiteral("no such role") : who.error().message)}};
    const QString user = who->text(0, 0);
    const auto yes = [&](int column) {
        return who->view(0, column) == "t";
    };
    Finding login{QStringLiteral("login"), QStringLiteral("%1").arg(user), {}};
    if (yes(1))
        login.fix = QStringLiteral("%1 is a superuser: services log in as a login of keel_gateway "
                                   "(docs/operations/schema-and-roles.md)")
                        .arg(user);
    else if (yes(3))
        login.fix = QStringLiteral("%1 owns the schema: services log in as a login of "
                                   "keel_gateway, the owner only migrates")
                        .arg(user);
    else if (!yes(2))
        login.fix = QStringLiteral("%1 is not a member of keel_gateway: GRANT keel_gateway TO %1")
                        .arg(user);
    else
        login.found = QStringLiteral("%1, a login of keel_gateway").arg(user);
    findings << login;
    if (Status schema = checkSchemaIsCurrent(session); !schema)
        findings << Finding{QStringLiteral("schema"), QString(), schema.error().message};
    else
        findings << Finding{QStringLiteral("schema"), QStringLiteral("current"), {}};
    if (login.ok()) {
        Finding grants{QStringLiteral("grants"), QStringLiteral("as the service needs"), {}};
        if (!yes(4) || yes(5))
            grants.fix = QStringLiteral("keel_gateway's grants differ from the migrations': run "
                                        "keel migrate as the owner, and grant nothing by hand");
        findings << grants;
    }
    return findings;
}

Finding checkServiceFile(const QString &named, const QString &path, bool secret)
{
    Finding file{QStringLiteral("%1 %2").arg(named, path), QString(), {}};
    const QFileInfo info(path);
    if (!info.exists()) {
        file.fix = QStringLiteral("no such file");
        return file;
    }
    if (!info.isReadable()) {
        file.fix = QStringLiteral("not readable by %1: chown it to the service's user")
                       .arg(qEnvironmentVariable("USER", QStringLiteral("this user")));
        return file;
    }
    const QFileDevice::Permissions others = QFileDevice::ReadGroup | QFileDevice::WriteGroup |
                                            QFileDevice::ReadOther | QFileDevice::WriteOther;
    if (secret && (info.permissions() & others)) {
        file.fix = QStringLiteral("a secret others can read: chmod 600 %1, owned by the service's "
                                  "user")
                       .arg(path);
        return file;
    }
    file.found = secret ? QStringLiteral("present, its owner's alone") : QStringLiteral("present");
    return file;
}

Finding checkCallTarget(const QString &named, const QUrl &url, const QString &authority,
                        const QString &trustOption, int timeoutMs)
{
    const bool tls = url.scheme() == QLatin1String("https");
    // Scheme, host and port only: a URL may carry a password or a token.
    Finding target{QStringLiteral("%1 %2://%3:%4")
                       .arg(named, url.scheme(), url.host())
                       .arg(url.port(tls ? 443 : 80)),
                   QString(),
                   {}};
    std::unique_ptr<HttpClient> client = HttpClient::forUrl(url, timeoutMs);
    if (!client) {
        target.fix =
            QStringLiteral("the service will not call it: %1").arg(HttpClient::refusal(url));
        return target;
    }
    if (!authority.isEmpty())
        client->setAuthority(authority);
    QString why;
    switch (client->reach(&why)) {
    case HttpClient::Reach::Reached:
        target.found = tls ? QStringLiteral("reached, its certificate verified")
                           : QStringLiteral("reached (plain http, allowed here)");
        break;
    case HttpClient::Reach::NotConnected:
        target.fix = QStringLiteral("%1: check the address, and that this host may reach it "
                                    "(DNS, firewall, proxy)")
                         .arg(why);
        break;
    case HttpClient::Reach::HandshakeFailed:
        target.fix = QStringLiteral("%1: is an https server answering at that port?").arg(why);
        break;
    case HttpClient::Reach::Untrusted:
        target.fix = QStringLiteral("%1: if its certificate comes from a private authority, name "
                                    "that authority's PEM file with %2")
                         .arg(why, trustOption);
        break;
    }
    return target;
}

namespace {

// Rows of (owner id, URL), parsed as the worker parses them before it calls.
CallTargets busiestOrigins(const PgRows &rows, int limit)
{
    CallTargets targets;
    QHash<QString, std::pair<QUrl, QSet<qint64>>> origins;
    for (int row = 0; row < rows.size(); ++row) {
        const qint64 owner = rows.text(row, 0).toLongLong();
        const QUrl url(rows.text(row, 1));
        if (!url.isValid() || url.host().isEmpty()) {
            if (!targets.unusable.contains(owner))
                targets.unusable << owner;
            continue;
        }
        const bool tls = url.scheme() == QLatin1String("https");
        const QString origin = QStringLiteral("%1://%2:%3")
                                   .arg(url.scheme(), url.host())
                                   .arg(url.port(tls ? 443 : 80));
        auto &[first, owners] = origins[origin];
        if (owners.isEmpty())
            first = url;
        owners.insert(owner);
    }
    QList<std::pair<QUrl, qsizetype>> busiest;
    for (const auto &[url, owners] : std::as_const(origins))
        busiest.append({url, owners.size()});
    std::sort(busiest.begin(), busiest.end(), [](const auto &a, const auto &b) {
        return a.second != b.second ? a.second > b.second : a.first.toString() < b.first.toString();
    });
    for (const auto &[url, owners] : std::as_const(busiest)) {
        if (targets.origins.size() == limit)
            break;
        targets.origins << url;
    }
    return targets;
}

} // namespace

Result<CallTargets> notifyTargets(LibpqConnection &session, int limit)
{
    Result<PgRows> rows = session.query("SELECT id, notify_url FROM keel.merchants "
                                        "WHERE notify_url IS NOT NULL AND status = 'active' "
                                        "ORDER BY id");
    if (!rows)
        return rows.error();
    return busiestOrigins(*rows, limit);
}

Result<CallTargets> participantTargets(LibpqConnection &session, int limit)
{
    // The sagas a worker may still call for, and the latest 10,000 started:
    // what the next ones will call, without reading years of history.
    // Each set by its own index: the active ones by status, the latest by id.
    Result<PgRows> rows = session.query(
        "WITH picked AS ((SELECT id FROM keel.sagas "
        "                 WHERE status IN ('running', 'compensating', 'parked')) "
        "  UNION (SELECT id FROM keel.sagas ORDER BY id DESC LIMIT 10000)) "
        "SELECT t.saga_id, u.url FROM picked p JOIN keel.saga_steps t ON t.saga_id = p.id "
        "CROSS JOIN LATERAL (VALUES (t.definition ->> 'action_url'), "
        "  (t.definition ->> 'compensate_url')) AS u(url) "
        "WHERE u.url IS NOT NULL AND u.url <> '' ORDER BY 1");
    if (!rows)
        return rows.error();
    return busiestOrigins(*rows, limit);
}

} // namespace keel
