#include "core/db/ConnectionProfile.h"

#include <QDir>
#include <QFileInfo>

namespace keel {
namespace {

Error invalid(const QString &field, const QString &message)
{
    return fieldError(field, QStringLiteral("connection_profile_invalid"), message);
}

QString kindName(ConnectionProfile::Kind kind)
{
    switch (kind) {
    case ConnectionProfile::Kind::Service:
        return QStringLiteral("service");
    case ConnectionProfile::Kind::Uri:
        return QStringLiteral("uri");
    case ConnectionProfile::Kind::Fields:
        break;
    }
    return QStringLiteral("fields");
}

ConnectionProfile::Kind kindFromName(const QString &name)
{
    if (name == QLatin1String("service"))
        return ConnectionProfile::Kind::Service;
    if (name == QLatin1String("uri"))
        return ConnectionProfile::Kind::Uri;
    return ConnectionProfile::Kind::Fields;
}

// libpq's default for verify-ca/verify-full when sslrootcert is not given.
QString defaultRootCertificate()
{
    return QDir::homePath() + QStringLiteral("/.postgresql/root.crt");
}

Status checkTls(const ConnectionSettings &settings)
{
    const QString mode = settings.value(QStringLiteral("sslmode"));
    if (!mode.isEmpty() && !ConnectionProfile::sslModes().contains(mode))
        return invalid(QStringLiteral("sslmode"),
                       QStringLiteral("sslmode must be one of %1; got \"%2\"")
                           .arg(ConnectionProfile::sslModes().join(QStringLiteral(", ")), mode));
    const QString rootCert = settings.value(QStringLiteral("sslrootcert"));
    if (!rootCert.isEmpty() && !QFileInfo(rootCert).isReadable())
        return invalid(QStringLiteral("sslrootcert"),
                       QStringLiteral("the root certificate %1 cannot be read").arg(rootCert));
    const bool verifies =
        mode == QLatin1String("verify-ca") || mode == QLatin1String("verify-full");
    if (verifies && rootCert.isEmpty() && !QFileInfo(defaultRootCertificate()).isReadable())
        return invalid(QStringLiteral("sslrootcert"),
                       QStringLiteral("sslmode %1 checks the server against a root certificate: "
                                      "choose one, or put it at %2")
                           .arg(mode, defaultRootCertificate()));
    return {};
}

Result<ConnectionSettings> parseField(const QString &field, const QString &dsn)
{
    Result<ConnectionSettings> parsed = ConnectionSettings::parse(dsn);
    if (!parsed) {
        Error error = parsed.error();
        error.field = field;
        return error;
    }
    if (parsed->has(QStringLiteral("password")))
        return invalid(field, QStringLiteral("remove the password from the connection string: "
                                             "the console keeps passwords in the keychain"));
    return parsed;
}

} // namespace

const QStringList &ConnectionProfile::sslModes()
{
    static const QStringList modes{QStringLiteral("disable"),   QStringLiteral("allow"),
                                   QStringLiteral("prefer"),    QStringLiteral("require"),
                                   QStringLiteral("verify-ca"), QStringLiteral("verify-full")};
    return modes;
}

// libpq reads a connection string as C text: a NUL ends it, so a field
// holding one would reach the server cut short, as something else.
Status ConnectionProfile::checkNoNul() const
{
    const std::pair<const char *, const QString *> fields[] = {
        {"name", &name},         {"host", &host},
        {"database", &database}, {"user", &user},
        {"service", &service},   {"uri", &uri},
        {"sslmode", &sslMode},   {"sslrootcert", &sslRootCert},
        {"replica", &replicaDsn}};
    for (const auto &[field, text] : fields)
        if (text->contains(QChar(u'\0')))
            return invalid(QLatin1String(field),
                           QStringLiteral("%1 contains a NUL character").arg(QLatin1String(field)));
    return {};
}

Result<ConnectionSettings> ConnectionProfile::primary() const
{
    if (Status text = checkNoNul(); !text)
        return text.error();
    if (name.trimmed().isEmpty())
        return invalid(QStringLiteral("name"), QStringLiteral("give the profile a name"));
    ConnectionSettings settings;
    switch (kind) {
    case Kind::Uri: {
        if (uri.trimmed().isEmpty())
            return invalid(QStringLiteral("uri"), QStringLiteral("enter a connection URI"));
        Result<ConnectionSettings> parsed = parseField(QStringLiteral("uri"), uri.trimmed());
        if (!parsed)
            return parsed.error();
        settings = *parsed;
        break;
    }
    case Kind::Service:
        if (service.trimmed().isEmpty())
            return invalid(QStringLiteral("service"),
                           QStringLiteral("enter the name of a pg_service.conf entry"));
        settings.set(QStringLiteral("service"), service.trimmed());
        break;
    case Kind::Fields:
        if (port < 0 || port > 65535)
            return invalid(QStringLiteral("port"),
                           QStringLiteral("port must be between 1 and 65535"));
        if (!host.trimmed().isEmpty())
            settings.set(QStringLiteral("host"), host.trimmed());
        if (port > 0)
            settings.set(QStringLiteral("port"), QString::number(port));
        if (!database.trimmed().isEmpty())
            settings.set(QStringLiteral("dbname"), database.trimmed());
        if (!user.trimmed().isEmpty())
            settings.set(QStringLiteral("user"), user.trimmed());
        break;
    }
    // The dialog's TLS fields win over what a URI or service says.
    if (!sslMode.isEmpty())
        settings.set(QStringLiteral("sslmode"), sslMode);
    if (!sslRootCert.trimmed().isEmpty())
        settings.set(QStringLiteral("sslrootcert"), sslRootCert.trimmed());
    if (Status tls = checkTls(settings); !tls)
        return tls.error();
    return settings;
}

Result<std::optional<ConnectionSettings>> ConnectionProfile::replica() const
{
    if (replicaDsn.trimmed().isEmpty())
        return std::optional<ConnectionSettings>();
    Result<ConnectionSettings> primarySettings = primary();
    if (!primarySettings)
        return primarySettings.error();
    Result<ConnectionSettings> parsed = parseField(QStringLiteral("replica"), replicaDsn.trimmed());
    if (!parsed)
        return parsed.error();
    ConnectionSettings replicaSettings = *parsed;
    for (const char *inherited : {"service", "user", "dbname", "sslmode", "sslrootcert"}) {
        const QString keyword = QString::fromLatin1(inherited);
        if (!replicaSettings.has(keyword) && primarySettings->has(keyword))
            replicaSettings.set(keyword, primarySettings->value(keyword));
    }
    if (Status tls = checkTls(replicaSettings); !tls) {
        Error error = tls.error();
        error.field = QStringLiteral("replica");
        return error;
    }
    return std::optional<ConnectionSettings>(replicaSettings);
}

QVariantMap ConnectionProfile::toMap() const
{
    return {{QStringLiteral("name"), name},         {QStringLiteral("kind"), kindName(kind)},
            {QStringLiteral("host"), host},         {QStringLiteral("port"), port},
            {QStringLiteral("database"), database}, {QStringLiteral("user"), user},
            {QStringLiteral("service"), service},   {QStringLiteral("uri"), uri},
            {QStringLiteral("sslmode"), sslMode},   {QStringLiteral("sslrootcert"), sslRootCert},
            {QStringLiteral("replica"), replicaDsn}};
}

ConnectionProfile ConnectionProfile::fromMap(const QVariantMap &map)
{
    ConnectionProfile profile;
    profile.name = map.value(QStringLiteral("name")).toString();
    profile.kind = kindFromName(map.value(QStringLiteral("kind")).toString());
    profile.host = map.value(QStringLiteral("host")).toString();
    profile.port = map.value(QStringLiteral("port")).toInt();
    profile.database = map.value(QStringLiteral("database")).toString();
    profile.user = map.value(QStringLiteral("user")).toString();
    profile.service = map.value(QStringLiteral("service")).toString();
    profile.uri = map.value(QStringLiteral("uri")).toString();
    profile.sslMode = map.value(QStringLiteral("sslmode")).toString();
    profile.sslRootCert = map.value(QStringLiteral("sslrootcert")).toString();
    profile.replicaDsn = map.value(QStringLiteral("replica")).toString();
    return profile;
}

} // namespace keel
