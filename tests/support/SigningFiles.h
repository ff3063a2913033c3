#pragma once

#include <QString>

namespace keel::test {

// A key, certificate or vector under tests/data/signing/, made by the scripts
// there (openssl), never by keel. For targets built with KEEL_SOURCE_DIR.
inline QString signingFile(const char *name)
{
    return QStringLiteral(KEEL_SOURCE_DIR "/tests/data/signing/") + QLatin1String(name);
}

} // namespace keel::test
