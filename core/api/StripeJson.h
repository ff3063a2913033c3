#pragma once

#include <QByteArray>

namespace keel {

struct ChargeRecord;
struct RefundRecord;

// A charge as Stripe's API shows it ("object": "charge"), plus keel's fields.
QByteArray renderCharge(const ChargeRecord &charge);
// A refund as Stripe's API shows it ("object": "refund"), plus keel's fields.
QByteArray renderRefund(const RefundRecord &refund);

} // namespace keel
