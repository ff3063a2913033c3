#pragma once

#include <QString>

namespace keel {

// A merchant as the payment services see it after authentication.
struct Merchant {
    qint64 id = 0;
    QString name;
    qint64 maxChargeAmount = 0; // 0: the currency's maximum applies
};

} // namespace keel
