#include "core/reference/CurrencyStore.h"

#include "core/db/LibpqConnection.h"
#include "core/money/Currency.h"

namespace keel {

Result<CurrencyTable> loadCurrencies(LibpqConnection &session)
{
    Result<PgRows> rows = session.query("SELECT code, exponent, max_amount FROM keel.currencies");
    if (!rows)
        return rows.error();
    QList<Currency> currencies;
    currencies.reserve(rows->size());
    for (int i = 0; i < rows->size(); ++i)
        currencies.append(
            Currency{rows->text(i, 0), int(rows->toInt64(i, 1)), rows->toInt64(i, 2)});
    return CurrencyTable(currencies);
}

} // namespace keel
