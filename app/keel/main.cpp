#include "Command.h"

#include "core/ServiceLog.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstdio>
#include <vector>

using namespace keel::cli;

namespace {

std::vector<std::unique_ptr<Command>> allCommands()
{
    std::vector<std::unique_ptr<Command>> commands;
    commands.push_back(makeMigrateCommand());
    commands.push_back(makeDevCommand());
    commands.push_back(makeGatewayCommand());
    commands.push_back(makeWorkerCommand());
    commands.push_back(makeRelayCommand());
    commands.push_back(makeDoctorCommand());
    commands.push_back(makeChannelSimCommand());
    commands.push_back(makeMerchantCommand());
    commands.push_back(makeAuditCommand());
    commands.push_back(makeReconCommand());
    commands.push_back(makeSimulateCommand());
    commands.push_back(makeSeedCommand());
    return commands;
}

constexpr const char ExitCodeHelp[] =
    "Exit codes:\n"
    "  0  success\n"
    "  1  the operation failed\n"
    "  2  bad command line or input\n"
    "  3  cannot connect to PostgreSQL (down, wrong address, wrong password)\n"
    "  4  something on this machine is missing or not permitted (programs, directories)\n"
    "  5  the database schema is newer than this keel, was tampered with, or is not migrated\n"
    "Errors are one line on stderr: \"keel <command>: <what is wrong>; <what to do>\".\n";

void printUsage(const std::vector<std::unique_ptr<Command>> &commands)
{
    std::printf("Usage: keel <command> [options]\n\n"
                "keel is a payment-gateway consistency core on PostgreSQL.\n\nCommands:\n");
    for (const auto &command : commands)
        std::printf("  %-10s %s\n", qPrintable(command->name()), qPrintable(command->summary()));
    std::printf("\nRun \"keel <command> --help\" for a command's options.\n\n%s", ExitCodeHelp);
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    // The services' log lines go to stderr, where systemd's journal reads them.
    keel::ServiceLog::setSink([](keel::ServiceLog::Level, const QString &line) {
        std::fprintf(stderr, "%s\n", qPrintable(line));
    });
    QCoreApplication::setApplicationName(QStringLiteral("keel"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KEEL_VERSION));

    const auto commands = allCommands();
    QStringList arguments = QCoreApplication::arguments();
    if (arguments.size() < 2 || arguments.at(1) == QLatin1String("--help") ||
        arguments.at(1) == QLatin1String("-h") || arguments.at(1) == QLatin1String("help")) {
        if (arguments.size() >= 3 && arguments.at(1) == QLatin1String("help"))
            arguments = {arguments.at(0), arguments.at(2), QStringLiteral("--help")};
        else {
            printUsage(commands);
            return arguments.size() < 2 ? ExitUsage : ExitOk;
        }
    }
    if (arguments.at(1) == QLatin1String("--version")) {
        std::printf("keel %s\n", KEEL_VERSION);
        return ExitOk;
    }

    for (const auto &command : commands) {
        if (command->name() != arguments.at(1))
            continue;
        QCommandLineParser parser;
        parser.setApplicationDescription(command->summary());
        parser.addHelpOption();
        command->addOptions(parser);
        arguments.removeAt(1);
        if (!parser.parse(arguments))
            return fail(command->name(),
                        keel::makeError(keel::ErrorKind::Usage, parser.errorText()));
        if (parser.isSet(QStringLiteral("help"))) {
            std::printf("Usage: keel %s [options]\n%s\n\n%s\n%s", qPrintable(command->name()),
                        qPrintable(command->summary()),
                        qPrintable(parser.helpText().section(u'\n', 2)), ExitCodeHelp);
            return ExitOk;
        }
        const QStringList positional = parser.positionalArguments();
        const QStringList actions = command->actions();
        if (actions.isEmpty() && !positional.isEmpty())
            return fail(
                command->name(),
                keel::makeError(
                    keel::ErrorKind::Usage,
                    QStringLiteral("unexpected argument \"%1\"").arg(positional.constFirst())));
        const bool noActionTaken = positional.isEmpty() && !command->actionRequired();
        if (!actions.isEmpty() && !noActionTaken &&
            (positional.isEmpty() || !actions.contains(positional.constFirst()) ||
             positional.size() != 1 + command->argumentsAfter(positional.constFirst())))
            return fail(
                command->name(),
                keel::makeError(
                    keel::ErrorKind::Usage,
                    QStringLiteral("expected one action (and its file, if it takes one): %1")
                        .arg(actions.join(QStringLiteral(", ")))));
        return command->run(parser);
    }
    std::fprintf(stderr, "keel: unknown command \"%s\"; run \"keel --help\" for the list\n",
                 qPrintable(arguments.at(1)));
    return ExitUsage;
}
