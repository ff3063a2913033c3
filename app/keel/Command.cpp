#include "Command.h"

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

QString databaseOption(const QCommandLineParser &parser)
{
    if (parser.isSet(QStringLiteral("db")))
        return parser.value(QStringLiteral("db"));
    return qEnvironmentVariable("KEEL_DB");
}

} // namespace keel::cli
