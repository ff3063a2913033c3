#include "core/runtime/ProcessSetup.h"

#include "core/db/LibpqConnection.h"
#include "core/db/SchemaCheck.h"
#include "core/reference/CurrencyStore.h"

#include <QCoreApplication>
#include <QSysInfo>

namespace keel {

Result<ProcessSetup> ProcessSetup::prepare(const ConnectionSettings &settings,
                                           const ChannelFactory &channel,
                                           const IdempotencyPolicy &idempotency,
                                           const QString &applicationName)
{
    if (!channel)
        return makeError(ErrorKind::Usage, QStringLiteral("no payment channel was chosen"));
    Result<LibpqConnection> session = LibpqConnection::open(settings);
    if (!session)
        return session.error();
    if (Status schema = checkSchemaIsCurrent(*session); !schema)
        return schema.error();
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
