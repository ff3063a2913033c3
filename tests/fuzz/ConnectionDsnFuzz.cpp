// Connection strings (what a profile and --db hold) through libpq's parser:
// any text is accepted or refused, and an accepted one survives being written
// back as conninfo and parsed again, keyword for keyword.
#include "FuzzInput.h"

#include "core/db/ConnectionSettings.h"

using namespace keel;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString dsn = QString::fromUtf8(fuzz::bytes(data, size));
    const Result<ConnectionSettings> parsed = ConnectionSettings::parse(dsn);
    if (!parsed)
        return 0;
    const Result<ConnectionSettings> again = ConnectionSettings::parse(parsed->conninfo());
    fuzz::require(again.ok(), "conninfo of an accepted string parses");
    fuzz::require(again->conninfo() == parsed->conninfo(), "conninfo is a fixed point");
    // The redacted form is itself a conninfo string: read back, it holds
    // every keyword but the password (a value may well contain "password=").
    if (!parsed->redacted().contains(u'='))
        return 0; // nothing but a password: the redacted form says "defaults"
    const Result<ConnectionSettings> redacted = ConnectionSettings::parse(parsed->redacted());
    fuzz::require(redacted.ok(), "the redacted form parses");
    fuzz::require(!redacted->has(QStringLiteral("password")),
                  "the redacted form never carries the password");
    fuzz::require(redacted->redacted() == parsed->redacted(), "redacting is a fixed point");
    return 0;
}
