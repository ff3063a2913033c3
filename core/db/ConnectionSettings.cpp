#include "core/db/ConnectionSettings.h"

#include <QSqlDatabase>
#include <QUrl>

#include <libpq-fe.h>

#include <memory>

namespace keel {
namespace {

// libpq's quoting for conninfo values: single quotes, with \ and ' escaped.
QString quoted(const QString &value)
{
    QString escaped = value;
    escaped.replace(u'\\', QStringLiteral("\\\\"));
    escaped.replace(u'\'', QStringLiteral("\\'"));
    return u'\'' + escaped + u'\'';
}

bool isSingleInteger(const QString &text)
{
    bool ok = false;
    const int port = text.toInt(&ok);
    return ok && port > 0 && port < 65536;
}

} // namespace

Result<ConnectionSettings> ConnectionSettings::parse(const QString &dsn)
{
    ConnectionSettings settings;
    const QString trimmed = dsn.trimmed();
    if (trimmed.isEmpty())
        return settings; // everything from PG* variables and libpq defaults

    char *rawError = nullptr;
    const QByteArray utf8 = trimmed.toUtf8();
    std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> options(
        PQconninfoParse(utf8.constData(), &rawError), &PQconninfoFree);
    if (!options) {
        QString reason =
            rawError ? QString::fromUtf8(rawError).trimmed() : QStringLiteral("out of memory");
        PQfreemem(rawError);
        return makeError(
            ErrorKind::Usage,
            QStringLiteral("invalid connection string: %1 (expected a libpq URI such as "
                           "postgresql://user@host:5432/db or key=value pairs such as "
                           "\"host=db1 dbname=keel\")")
                .arg(reason));
    }
    for (PQconninfoOption *option = options.get(); option->keyword; ++option) {
        if (option->val)
            settings.m_parameters.append(
                {QString::fromUtf8(option->keyword), QString::fromUtf8(option->val)});
    }
    return settings;
}

QString ConnectionSettings::value(const QString &keyword) const
{
    for (const auto &[key, val] : m_parameters)
        if (key == keyword)
            return val;
    return {};
}

bool ConnectionSettings::has(const QString &keyword) const
{
    for (const auto &parameter : m_parameters)
        if (parameter.first == keyword)
            return true;
    return false;
}

void ConnectionSettings::setDefault(const QString &keyword, const QString &value)
{
    if (!has(keyword))
        set(keyword, value);
}

void ConnectionSettings::set(const QString &keyword, const QString &value)
{
    for (auto &parameter : m_parameters) {
        if (parameter.first == keyword) {
            parameter.second = value;
            return;
        }
    }
    m_parameters.append({keyword, value});
}

QString ConnectionSettings::redacted() const
{
    QStringList parts;
    for (const auto &[key, val] : m_parameters) {
        if (key == QLatin1String("password"))
            continue;
        parts << key + u'=' + quoted(val);
    }
    return parts.isEmpty() ? QStringLiteral("(defaults from PG* environment)") : parts.join(u' ');
}

QString ConnectionSettings::conninfo() const
{
    QStringList parts;
    for (const auto &[key, val] : m_parameters)
        parts << key + u'=' + quoted(val);
    return parts.join(u' ');
}

QString ConnectionSettings::uri() const
{
    // User, host, port and database go in the authority and path (a socket
    // directory percent-encoded, as libpq allows), so that the common case has
    // no '&' or '?' to trip a shell; anything else follows as query parameters.
    const auto encode = [](const QString &text) {
        return QString::fromLatin1(QUrl::toPercentEncoding(text));
    };
    const QString host = value(QStringLiteral("host"));
    const QString port = value(QStringLiteral("port"));
    const bool plainHost = !host.contains(u',') && !port.contains(u',');
    QString authority;
    if (has(QStringLiteral("user")))
        authority = encode(value(QStringLiteral("user"))) + u'@';
    if (plainHost && !host.isEmpty())
        authority +=
            host.contains(u':') && !host.contains(u'/') ? u'[' + host + u']' : encode(host);
    if (plainHost && !port.isEmpty())
        authority += u':' + port;
    QStringList query;
    for (const auto &[key, val] : m_parameters) {
        if (key == QLatin1String("password") || key == QLatin1String("user") ||
            key == QLatin1String("dbname") ||
            (plainHost && (key == QLatin1String("host") || key == QLatin1String("port"))))
            continue;
        query << key + u'=' + encode(val);
    }
    QString text = QStringLiteral("postgresql://") + authority + u'/' +
                   encode(value(QStringLiteral("dbname")));
    if (!query.isEmpty())
        text += u'?' + query.join(u'&');
    return text;
}

Status ConnectionSettings::applyTo(QSqlDatabase &db) const
{
    // QPSQL quotes what comes through its setters but pastes connect options
    // into the conninfo string after turning ';' into ' ', so a value that
    // holds a ';' cannot pass through options.
    QStringList options;
    for (const auto &[key, val] : m_parameters) {
        if (key == QLatin1String("host"))
            db.setHostName(val);
        else if (key == QLatin1String("dbname"))
            db.setDatabaseName(val);
        else if (key == QLatin1String("user"))
            db.setUserName(val);
        else if (key == QLatin1String("password"))
            db.setPassword(val);
        else if (key == QLatin1String("port") && isSingleInteger(val))
            db.setPort(val.toInt());
        else if (val.contains(u';'))
            return makeError(ErrorKind::Usage,
                             QStringLiteral("connection option %1 contains ';', which Qt's "
                                            "PostgreSQL driver cannot pass on; move it to a "
                                            "service file (service=NAME)")
                                 .arg(key));
        else
            options << key + u'=' + quoted(val);
    }
    db.setConnectOptions(options.join(u';'));
    return {};
}

} // namespace keel
