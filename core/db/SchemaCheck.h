#pragma once

#include "core/Result.h"

namespace keel {

class LibpqConnection;

// Succeeds only if the database's schema is exactly the one this binary
// ships: every process and command that reads or writes keel's tables asks
// first, on the session it will work on, so that a binary newer than the
// schema refuses instead of writing rows the schema would have shaped
// differently.
Status checkSchemaIsCurrent(LibpqConnection &session);

} // namespace keel
