#include "Command.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/SchemaCheck.h"

#include <QCommandLineParser>

#include <cstdio>

namespace keel::cli {

int exitCodeFor(const Error &error)
{
    switch (error.kind) {
    case ErrorKind::Usage:
        return ExitUsage;
    case ErrorKind::Connection:
        return ExitConnection;
    case ErrorKind::Environment:
        return ExitEnvironment;
    case ErrorKind::Schema:
        return ExitSchema;
    case ErrorKind::Failed:
        break;
    }
    return ExitFailed;
}

int fail(const QString &command, const Error &error)
{
    std::fprintf(stderr, "keel %s: %s\n", qPrintable(command), qPrintable(error.message));
    return exitCodeFor(error);
}

void printLine(const QString &line)
{
    std::fprintf(stdout, "%s\n", qPrintable(line));
    std::fflush(stdout);
}

void note(const QString &line)
{
    std::fprintf(stderr, "%s\n", qPrintable(line));
    std::fflush(stderr);
}

void addDatabaseOption(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("db"),
                      QStringLiteral("PostgreSQL to use: a libpq URI or key=value string. Default: "
                                     "$KEEL_DB, else libpq's PG* variables and defaults."),
                      QStringLiteral("DSN")});
}

Result<std::pair<QString, int>> parseListen(const QString &text)
{
    const qsizetype colon = text.lastIndexOf(u':');
    bool ok = false;
    const int port = colon > 0 ? text.mid(colon + 1).toInt(&ok) : 0;
    if (colon <= 0 || !ok || port < 0 || port > 65535)
        return makeError(
            ErrorKind::Usage,
            QStringLiteral("--listen must be HOST:PORT, such as 127.0.0.1:8080; got \"%1\"")
                .arg(text));
    QString host = text.left(colon);
    if (host.startsWith(u'[') && host.endsWith(u']'))
        host = host.mid(1, host.size() - 2);
    return std::pair<QString, int>{host, port};
}

Result<int> intOption(const QCommandLineParser &parser, const QString &name, int fallback, int min,
                      int max)
{
    if (!parser.isSet(name))
        return fallback;
    bool ok = false;
    const int value = parser.value(name).toInt(&ok);
    if (!ok || value < min || value > max)
        return makeError(ErrorKind::Usage,
                         QStringLiteral("--%1 must be a whole number from %2 to %3; got \"%4\"")
                             .arg(name)
                             .arg(min)
                             .arg(max)
                             .arg(parser.value(name)));
    return value;
}

Result<double> rateOption(const QCommandLineParser &parser, const QString &name)
{
    if (!parser.isSet(name))
        return 0.0;
    bool ok = false;
    const double value = parser.value(name).toDouble(&ok);
    if (!ok || value < 0 || value > 1)
        return makeError(ErrorKind::Usage,
                         QStringLiteral("--%1 must be a fraction from 0 to 1; got \"%2\"")
                             .arg(name, parser.value(name)));
    return value;
}

Result<LibpqConnection> openDatabase(const QCommandLineParser &parser)
{
    Result<ConnectionSettings> settings = ConnectionSettings::parse(databaseOption(parser));
    if (!settings)
        return settings.error();
    Result<LibpqConnection> session = LibpqConnection::open(*settings);
    if (!session)
        return session;
    if (Status schema = checkSchemaIsCurrent(*session); !schema)
        return schema.error();
    return session;
}

QString databaseOption(const QCommandLineParser &parser)
{
    if (parser.isSet(QStringLiteral("db")))
        return parser.value(QStringLiteral("db"));
    return qEnvironmentVariable("KEEL_DB");
}

} // namespace keel::cli
