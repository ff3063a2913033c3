#pragma once

#include "core/Result.h"

#include <QHash>
#include <QList>
#include <QString>

#include <optional>

namespace keel {

struct Currency {
    QString code;     // ISO 4217, upper case
    int exponent = 2; // minor units per major unit = 10^exponent
    qint64 maxAmount = 0;
};

// The currencies keel accepts. The rows come from the currencies table
// (reference/CurrencyStore.h), loaded once per process: they change only
// through migrations.
class CurrencyTable final {
public:
    CurrencyTable() = default;
    explicit CurrencyTable(const QList<Currency> &currencies);

    // Accepts the upper-case code or, as Stripe clients send it, the
    // all-lower-case one; mixed case and unknown codes are not found.
    std::optional<Currency> find(const QString &code) const;
    int size() const { return int(m_currencies.size()); }

private:
    QHash<QString, Currency> m_currencies;
};

// Parses an amount in minor units: ASCII digits only (no sign, spaces,
// separators, decimal point or non-ASCII digits), positive, within int64 and
// at most `limit`. The error message names `field` and says what is allowed.
Result<qint64> parseMinorUnits(const QString &text, const Currency &currency, qint64 limit,
                               const QString &field = QStringLiteral("amount"));

// Parses an amount written in major units with a decimal point, as Alipay
// writes total_amount ("19.99" CNY is 1999): 1 to 15 ASCII digits, then
// optionally '.' and 1 to the currency's exponent of decimals; zero is read
// as zero (the caller compares it). The result in minor units.
Result<qint64> parseMajorUnits(const QString &text, const Currency &currency,
                               const QString &field = QStringLiteral("amount"));

// The other way: 1999 CNY is "19.99", 500 JPY is "500" (minor units >= 0).
QString formatMajorUnits(qint64 minorUnits, const Currency &currency);

} // namespace keel
