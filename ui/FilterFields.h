#pragma once

#include "core/Result.h"

#include <QDateTime>

#include <optional>

class QLineEdit;

namespace keel {

// The console's search fields read the same way everywhere: empty means "any",
// anything else is checked and the error names the field.

// A whole number ≥ 0 (ids, amounts in minor units as they are stored: "12.50"
// in a currency-less field would mean nothing exact).
Result<std::optional<qint64>> wholeNumberField(const QLineEdit *field, const QString &name);

// Two whole-number fields that bound a range (minor units); the first may not
// exceed the second.
struct WholeRange {
    std::optional<qint64> min;
    std::optional<qint64> max;
};
Result<WholeRange> wholeRangeFields(const QLineEdit *minField, const QString &minName,
                                    const QLineEdit *maxField, const QString &maxName);

// The merchant id and amount range that every payment search offers; the
// field names come from the caller, in its own words.
struct MerchantAndAmounts {
    qint64 merchantId = 0; // 0: any
    WholeRange amounts;
};
struct MerchantAndAmountFields {
    const QLineEdit *merchant;
    const QLineEdit *minAmount;
    const QLineEdit *maxAmount;
};
Result<MerchantAndAmounts> merchantAndAmounts(const MerchantAndAmountFields &fields);

// A day as ISO 8601 (2026-11-30), the start of that day in local time.
Result<QDateTime> dayField(const QLineEdit *field, const QString &name);

} // namespace keel
