// Amounts as clients write them, in minor units ("1999") and, as Alipay does,
// in major units ("19.99"): each is accepted exactly when an independent
// reading of the rule accepts it, to the same value, and a formatted amount
// always reads back as itself. Money never passes through a double here.
#include "FuzzInput.h"

#include "core/money/Currency.h"

#include <QRegularExpression>

using namespace keel;

namespace {

// The rule read independently: minor units are ASCII digits, positive and
// within the limit; major units are 1 to 15 ASCII digits, then optionally a
// point and 1..exponent digits, zero allowed (the caller compares it).
std::optional<qint64> expected(const QString &text, int exponent, qint64 limit, bool major)
{
    static const QRegularExpression minorForm(QStringLiteral("\\A[0-9]+\\z"));
    static const QRegularExpression majorForm(QStringLiteral("\\A([0-9]+)(?:\\.([0-9]+))?\\z"));
    const QRegularExpressionMatch match = (major ? majorForm : minorForm).match(text);
    if (!match.hasMatch())
        return std::nullopt;
    QString digits = major ? match.captured(1) : text;
    QString decimals = major ? match.captured(2) : QString();
    if (decimals.size() > exponent || (major && digits.size() > 15))
        return std::nullopt;
    if (major)
        digits += decimals + QString(exponent - decimals.size(), u'0');
    qint64 value = 0;
    for (const QChar digit : digits) {
        const int d = digit.unicode() - u'0';
        if (value > (std::numeric_limits<qint64>::max() - d) / 10)
            return std::nullopt;
        value = value * 10 + d;
    }
    if (value < (major ? 0 : 1) || value > limit)
        return std::nullopt;
    return value;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const int exponent = data[0] % 5; // 0..4, as the currencies table allows
    const QString text = QString::fromUtf8(fuzz::bytes(data + 1, size - 1));
    const Currency currency{QStringLiteral("XTS"), exponent, 100000000000};

    const Result<qint64> minor = parseMinorUnits(text, currency, currency.maxAmount);
    const std::optional<qint64> minorExpected = expected(text, exponent, currency.maxAmount, false);
    fuzz::require(minor.ok() == minorExpected.has_value(),
                  "minor units are accepted exactly by the rule");
    if (minor.ok())
        fuzz::require(*minor == *minorExpected, "minor units read as their digits");

    const Result<qint64> major = parseMajorUnits(text, currency);
    const std::optional<qint64> majorExpected =
        expected(text, exponent, std::numeric_limits<qint64>::max(), true);
    fuzz::require(major.ok() == majorExpected.has_value(),
                  "major units are accepted exactly by the rule");
    if (major.ok()) {
        fuzz::require(*major == *majorExpected, "major units scale by the exponent");
        const Result<qint64> again = parseMajorUnits(formatMajorUnits(*major, currency), currency);
        fuzz::require(again.ok() && *again == *major, "a formatted amount reads back as itself");
    }
    return 0;
}
