#include "Command.h"

#include "core/db/ConnectionSettings.h"
#include "core/db/Migrator.h"
#include "core/db/QtSqlConnections.h"

#include <QCommandLineParser>
#include <QLocale>

namespace keel::cli {
namespace {

class MigrateCommand final : public Command {
public:
    QString name() const override { return QStringLiteral("migrate"); }
    QString summary() const override
    {
        return QStringLiteral("Apply the schema migrations the database is missing.");
    }

    void addOptions(QCommandLineParser &parser) const override
    {
        addDatabaseOption(parser);
        parser.addOption({QStringLiteral("status"),
                          QStringLiteral("List applied and pending migrations; change nothing.")});
        parser.addOption({QStringLiteral("migrations"),
                          QStringLiteral("Use the migration files in DIR instead of the ones "
                                         "built into keel."),
                          QStringLiteral("DIR")});
    }

    int run(const QCommandLineParser &parser) override
    {
        Result<ConnectionSettings> settings = ConnectionSettings::parse(databaseOption(parser));
        if (!settings)
            return fail(name(), settings.error());
        Result<QList<Migration>> migrations =
            parser.isSet(QStringLiteral("migrations"))
                ? MigrationSource::load(parser.value(QStringLiteral("migrations")))
                : MigrationSource::load();
        if (!migrations)
            return fail(name(), migrations.error());
        Result<QSqlDatabase> db =
            QtSqlConnections::connect(*settings, QStringLiteral("keel-migrate"));
        if (!db)
            return fail(name(), db.error());

        Migrator migrator(*db, *migrations);
        if (parser.isSet(QStringLiteral("status")))
            return printStatus(migrator);

        Result<int> applied = migrator.migrate([](const Migration &migration, qint64 ms) {
            printLine(QStringLiteral("applied %1 (%2 ms)").arg(migration.label()).arg(ms));
        });
        if (!applied)
            return fail(name(), applied.error());
        printLine(*applied == 0
                      ? QStringLiteral("schema is up to date at version %1").arg(migrations->size())
                      : QStringLiteral("schema is now at version %1").arg(migrations->size()));
        return ExitOk;
    }

private:
    int printStatus(Migrator &migrator)
    {
        Result<QList<MigrationStatus>> status = migrator.status();
        if (!status)
            return fail(name(), status.error());
        int pending = 0;
        for (const MigrationStatus &entry : std::as_const(*status)) {
            if (entry.applied) {
                printLine(QStringLiteral("applied  %1  %2 by %3")
                              .arg(entry.migration.label(),
                                   entry.appliedAt.toUTC().toString(Qt::ISODate), entry.appliedBy));
            } else {
                ++pending;
                printLine(QStringLiteral("pending  %1").arg(entry.migration.label()));
            }
        }
        printLine(
            QStringLiteral("%1 applied, %2 pending").arg(status->size() - pending).arg(pending));
        return ExitOk;
    }
};

} // namespace

std::unique_ptr<Command> makeMigrateCommand()
{
    return std::make_unique<MigrateCommand>();
}

} // namespace keel::cli
