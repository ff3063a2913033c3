#pragma once

#include <QString>

#include <optional>

namespace keel {

class ConnectionSettings;

// What the simulated network recorded of one operation it processed: the
// amount and currency, which a channel's own protocol reports back.
struct SimRecord {
    qint64 amount = 0;
    QString currency;
};

// nullopt: nothing recorded for (reference, operation), or the record is unreadable.
std::optional<SimRecord> simRecord(const ConnectionSettings &settings, const QString &reference,
                                   const QString &operation);

} // namespace keel
