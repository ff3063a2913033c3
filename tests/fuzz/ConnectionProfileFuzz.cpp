// Connection profiles as the console stores them (a map per profile in its
// settings file): any stored values load without crashing, survive being
// stored again unchanged, and a profile the console accepts yields settings
// that say exactly what its fields say — no field smuggles in another
// keyword (a host of "x password=y" stays a host) and none carries a password.
#include "FuzzInput.h"

#include "core/db/ConnectionProfile.h"

#include <algorithm>

using namespace keel;

namespace {

void requireFaithful(const ConnectionSettings &settings)
{
    const Result<ConnectionSettings> again = ConnectionSettings::parse(settings.conninfo());
    fuzz::require(again.ok(), "accepted settings parse back");
    // libpq lists keywords in its own order; what matters is each one's value.
    auto sorted = [](QList<std::pair<QString, QString>> parameters) {
        std::sort(parameters.begin(), parameters.end());
        return parameters;
    };
    fuzz::require(sorted(again->parameters()) == sorted(settings.parameters()),
                  "every keyword reads back as it was set, and no other");
    fuzz::require(!settings.has(QStringLiteral("password")), "a profile never holds a password");
}

bool sameProfile(const ConnectionProfile &a, const ConnectionProfile &b)
{
    return a.name == b.name && a.kind == b.kind && a.host == b.host && a.port == b.port &&
           a.database == b.database && a.user == b.user && a.service == b.service &&
           a.uri == b.uri && a.sslMode == b.sslMode && a.sslRootCert == b.sslRootCert &&
           a.replicaDsn == b.replicaDsn;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QList<QByteArray> parts = fuzz::fields(fuzz::bytes(data, size), 10);
    const char *const keys[] = {"name",    "kind", "host",    "port",        "database", "user",
                                "service", "uri",  "sslmode", "sslrootcert", "replica"};
    QVariantMap stored;
    for (int i = 0; i < 11; ++i)
        stored.insert(QLatin1String(keys[i]), QString::fromUtf8(parts[i]));
    const ConnectionProfile profile = ConnectionProfile::fromMap(stored);
    fuzz::require(sameProfile(ConnectionProfile::fromMap(profile.toMap()), profile),
                  "a loaded profile is stored again unchanged");
    if (const Result<ConnectionSettings> primary = profile.primary(); primary.ok())
        requireFaithful(*primary);
    if (const auto replica = profile.replica(); replica.ok() && replica->has_value())
        requireFaithful(**replica);
    return 0;
}
