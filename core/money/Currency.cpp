#include "core/money/Currency.h"

#include <limits>

namespace keel {

CurrencyTable::CurrencyTable(const QList<Currency> &currencies)
{
    for (const Currency &currency : currencies)
        m_currencies.insert(currency.code, currency);
}

std::optional<Currency> CurrencyTable::find(const QString &code) const
{
    const bool upper = code == code.toUpper();
    const bool lower = code == code.toLower();
    if (code.size() != 3 || !(upper || lower))
        return std::nullopt;
    const auto it = m_currencies.constFind(code.toUpper());
    if (it == m_currencies.constEnd())
        return std::nullopt;
    return *it;
}

Result<qint64> parseMinorUnits(const QString &text, const Currency &currency, qint64 limit,
                               const QString &field)
{
    const auto invalid = [&](const QString &why, const char *code = "parameter_invalid_integer") {
        return fieldError(field, QString::fromLatin1(code),
                          QStringLiteral("%1 %2").arg(field, why));
    };
    if (text.isEmpty())
        return invalid(QStringLiteral("is required"));
    qint64 value = 0;
    for (const QChar c : text) {
        if (c == u'.' || c == u',')
            return invalid(QStringLiteral("must be a whole number of minor units (%1 has %2 "
                                          "decimal places, so 1 means %3 %1); got \"%4\"")
                               .arg(currency.code)
                               .arg(currency.exponent)
                               .arg(currency.exponent == 0 ? QStringLiteral("1")
                                                           : QStringLiteral("0.%1").arg(
                                                                 QStringLiteral("1").rightJustified(
                                                                     currency.exponent, u'0')))
                               .arg(text));
        if (c < u'0' || c > u'9')
            return invalid(
                QStringLiteral("must contain only the ASCII digits 0-9; got \"%1\"").arg(text));
        const int digit = c.unicode() - u'0';
        if (value > (std::numeric_limits<qint64>::max() - digit) / 10)
            return invalid(QStringLiteral("is too large"), "amount_too_large");
        value = value * 10 + digit;
    }
    if (value == 0)
        return invalid(QStringLiteral("must be greater than zero"));
    const qint64 ceiling = limit > 0 ? std::min(limit, currency.maxAmount) : currency.maxAmount;
    if (value > ceiling)
        return invalid(QStringLiteral("must be at most %1 for %2").arg(ceiling).arg(currency.code),
                       "amount_too_large");
    return value;
}

Result<qint64> parseMajorUnits(const QString &text, const Currency &currency, const QString &field)
{
    const qsizetype point = text.indexOf(u'.');
    const QString whole = point < 0 ? text : text.left(point);
    const QString fraction = point < 0 ? QString() : text.mid(point + 1);
    const auto digitsOnly = [](const QString &part) {
        for (const QChar c : part)
            if (c < u'0' || c > u'9')
                return false;
        return true;
    };
    if (whole.isEmpty() || whole.size() > 15 || !digitsOnly(whole) || !digitsOnly(fraction) ||
        (point >= 0 && fraction.isEmpty()) || fraction.size() > currency.exponent)
        return fieldError(field, QStringLiteral("parameter_invalid"),
                          QStringLiteral("%1 must be an amount in %2 with at most %3 decimal "
                                         "places; got \"%4\"")
                              .arg(field, currency.code)
                              .arg(currency.exponent)
                              .arg(text));
    qint64 value = whole.toLongLong();
    for (int i = 0; i < currency.exponent; ++i) {
        const int digit = i < fraction.size() ? fraction.at(i).unicode() - u'0' : 0;
        // Fifteen digits and an exponent of 4 do not fit in 64 bits.
        if (__builtin_mul_overflow(value, 10, &value) ||
            __builtin_add_overflow(value, digit, &value))
            return fieldError(field, QStringLiteral("parameter_invalid"),
                              QStringLiteral("%1 is too large; got \"%2\"").arg(field, text));
    }
    return value;
}

QString formatMajorUnits(qint64 minorUnits, const Currency &currency)
{
    if (currency.exponent <= 0)
        return QString::number(minorUnits);
    QString digits = QString::number(minorUnits).rightJustified(currency.exponent + 1, u'0');
    digits.insert(digits.size() - currency.exponent, u'.');
    return digits;
}

} // namespace keel
