#pragma once

#include <QByteArray>

namespace keel {

struct ChargeRecord;

// A charge as Stripe's API shows it ("object": "charge"), plus keel's fields.
QByteArray renderCharge(const ChargeRecord &charge);

} // namespace keel
