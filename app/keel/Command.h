#pragma once

#include "core/Result.h"
#include "core/db/LibpqConnection.h"

#include <QStringList>

#include <memory>

class QCommandLineParser;

namespace keel {
class LibpqConnection;
}

namespace keel::cli {

// Exit codes of every keel command (documented in `keel --help` and docs/cli.md).
enum ExitCode : int {
    ExitOk = 0,
    ExitFailed = 1,      // the operation was attempted and failed
    ExitUsage = 2,       // bad command line or malformed input
    ExitConnection = 3,  // the database could not be reached or refused the login
    ExitEnvironment = 4, // a program, directory or permission on this machine is missing
    ExitSchema = 5,      // the database schema is newer, tampered with, or not migrated
};

int exitCodeFor(const Error &error);

// One subcommand of the keel CLI.
class Command {
public:
    virtual ~Command() = default;
    virtual QString name() const = 0;
    virtual QString summary() const = 0;
    virtual void addOptions(QCommandLineParser &parser) const = 0;
    // The actions a command takes as its one positional argument
    // ("keel merchant create"); empty for commands without one.
    virtual QStringList actions() const { return {}; }
    // Whether the command does something without an action too ("keel
    // channel-sim" serves; "keel channel-sim statement" writes a statement).
    virtual bool actionRequired() const { return true; }
    // How many positional arguments follow `action` ("keel recon import FILE").
    virtual int argumentsAfter(const QString &action) const
    {
        Q_UNUSED(action);
        return 0;
    }
    virtual int run(const QCommandLineParser &parser) = 0;
};

std::unique_ptr<Command> makeMigrateCommand();
std::unique_ptr<Command> makeDevCommand();
std::unique_ptr<Command> makeGatewayCommand();
std::unique_ptr<Command> makeWorkerCommand();
std::unique_ptr<Command> makeRelayCommand();
std::unique_ptr<Command> makeDoctorCommand();
std::unique_ptr<Command> makeMerchantCommand();
std::unique_ptr<Command> makeAuditCommand();
std::unique_ptr<Command> makeReconCommand();
std::unique_ptr<Command> makeSimulateCommand();
std::unique_ptr<Command> makeSeedCommand();
std::unique_ptr<Command> makeChannelSimCommand();

// Parses "HOST:PORT" (port 0 = any free one).
Result<std::pair<QString, int>> parseListen(const QString &text);
// Parses an integer option within [min, max], naming the option on error.
Result<int> intOption(const QCommandLineParser &parser, const QString &name, int fallback, int min,
                      int max);
Result<double> rateOption(const QCommandLineParser &parser, const QString &name);

// Prints "keel <command>: <message>" on stderr and returns the exit code.
int fail(const QString &command, const Error &error);
// Writes a line to stdout and flushes it (other programs wait for these lines).
void printLine(const QString &line);
// Writes a progress/info line to stderr.
void note(const QString &line);

// The --db option shared by commands that talk to the database.
void addDatabaseOption(QCommandLineParser &parser);
QString databaseOption(const QCommandLineParser &parser);
// A libpq session to the --db database (parsed, its schema checked to be the
// one this binary ships, opened; errors as one line).
Result<LibpqConnection> openDatabase(const QCommandLineParser &parser);

} // namespace keel::cli
