#include "Command.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/LibpqConnection.h"
#include "devkit/sim/HistorySeeder.h"

#include <QCommandLineParser>
#include <QElapsedTimer>

#include <cstdio>

namespace keel::cli {
namespace {

class SeedCommand final : public Command {
public:
    QString name() const override { return QStringLiteral("seed"); }
    QString summary() const override
    {
        return QStringLiteral(
            "Bulk-load realistic payment history (COPY) for demos and benchmarks.");
    }

    void addOptions(QCommandLineParser &parser) const override
    {
        addDatabaseOption(parser);
        parser.addOption({QStringLiteral("charges"),
                          QStringLiteral("How many charges (default 100000)."),
                          QStringLiteral("N")});
        parser.addOption({QStringLiteral("merchants"),
                          QStringLiteral("Across how many merchants (default 20)."),
                          QStringLiteral("N")});
        parser.addOption({QStringLiteral("days"),
                          QStringLiteral("Spread over the last N days (default 30)."),
                          QStringLiteral("N")});
    }

    int run(const QCommandLineParser &parser) override
    {
        Result<int> charges = intOption(parser, QStringLiteral("charges"), 100000, 1, 100000000);
        Result<int> merchants = intOption(parser, QStringLiteral("merchants"), 20, 1, 10000);
        Result<int> days = intOption(parser, QStringLiteral("days"), 30, 1, 3650);
        for (const auto *option : {&charges, &merchants, &days})
            if (!*option)
                return fail(name(), option->error());
        Result<LibpqConnection> session = openDatabase(parser);
        if (!session)
            return fail(name(), session.error());
        QElapsedTimer timer;
        timer.start();
        Result<qint64> seeded =
            HistorySeeder::seed(*session, {*charges, *merchants, *days}, [&](qint64 done) {
                std::fprintf(stderr, "\rseeded %lld/%d charges (%.1f s)",
                             static_cast<long long>(done), *charges,
                             double(timer.elapsed()) / 1000.0);
                std::fflush(stderr);
            });
        std::fprintf(stderr, "\n");
        if (!seeded)
            return fail(name(), seeded.error());
        printLine(QStringLiteral("seeded %1 charges in %2 s")
                      .arg(*seeded)
                      .arg(double(timer.elapsed()) / 1000.0, 0, 'f', 1));
        return ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeSeedCommand()
{
    return std::make_unique<SeedCommand>();
}

} // namespace keel::cli
