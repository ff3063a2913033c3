#pragma once

#include "core/Result.h"

namespace keel {

class CurrencyTable;
class LibpqConnection;

// Reads keel.currencies into the table the request checks use.
Result<CurrencyTable> loadCurrencies(LibpqConnection &session);

} // namespace keel
