#include "core/runtime/ProcessSetup.h"

#include "core/db/LibpqConnection.h"
#include "core/db/MigrationSource.h"
#include "core/db/Migrator.h"
#include "core/db/QtSqlConnections.h"
#include "core/reference/CurrencyStore.h"

#include <QCoreApplication>
#include <QSysInfo>

namespace keel {
namespace {

Status checkSchema(const ConnectionSettings &settings)
{
    Result<QList<Migration>> migrations = MigrationSource::load();
    if (!migrations)
        return migrations.error();
    Status result;
    {
        Result<QSqlDatabase> db =
            QtSqlConnections::connect(settings, QStringLiteral("keel-schema-check"));
        if (!db)
            return db.error();
        result = Migrator(*db, *migrations).checkCurrent();
    }
    QtSqlConnections::closeThreadConnections();
    return result;
}

} // namespace

Result<ProcessSetup> ProcessSetup::prepare(const ConnectionSettings &settings,
                                           const ChannelFactory &channel,
                                           const IdempotencyPolicy &idempotency,
                                           const QString &applicationName)
{
    if (!channel)
        return makeError(ErrorKind::Usage, QStringLiteral("no payment channel was chosen"));
    if (Status schema = checkSchema(settings); !schema)
        return schema.error();
    Result<LibpqConnection> session = LibpqConnection::open(settings);
    if (!session)
        return session.error();
    Result<CurrencyTable> currencies = loadCurrencies(*session);
    if (!currencies)
        return currencies.error();

    ProcessSetup setup;
    setup.housekeeping = std::make_unique<LibpqConnection>(std::move(session).value());
    setup.context.settings = settings;
    if (!setup.context.settings.has(QStringLiteral("application_name")))
        setup.context.settings.set(QStringLiteral("application_name"), applicationName);
    setup.context.channel = channel(settings);
    setup.context.currencies = *currencies;
    setup.context.idempotency = idempotency;
    setup.context.instance = QStringLiteral("%1:%2")
                                 .arg(QSysInfo::machineHostName())
                                 .arg(QCoreApplication::applicationPid());
    return setup;
}

} // namespace keel
