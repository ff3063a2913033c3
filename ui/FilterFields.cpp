#include "ui/FilterFields.h"

#include <QCoreApplication>
#include <QLineEdit>

namespace keel {

Result<std::optional<qint64>> wholeNumberField(const QLineEdit *field, const QString &name)
{
    const QString text = field->text().trimmed();
    if (text.isEmpty())
        return std::optional<qint64>();
    bool ok = false;
    const qint64 value = text.toLongLong(&ok);
    if (!ok || value < 0)
        return fieldError(name, QStringLiteral("invalid_filter"),
                          QCoreApplication::translate("keel::FilterFields",
                                                      "%1 must be a whole number ≥ 0; got \"%2\"")
                              .arg(name, text));
    return std::optional<qint64>(value);
}

Result<WholeRange> wholeRangeFields(const QLineEdit *minField, const QString &minName,
                                    const QLineEdit *maxField, const QString &maxName)
{
    const Result<std::optional<qint64>> min = wholeNumberField(minField, minName);
    if (!min)
        return min.error();
    const Result<std::optional<qint64>> max = wholeNumberField(maxField, maxName);
    if (!max)
        return max.error();
    if (*min && *max && **min > **max)
        return fieldError(minName, QStringLiteral("invalid_filter"),
                          QCoreApplication::translate("keel::FilterFields", "%1 is above %2")
                              .arg(minName, maxName));
    return WholeRange{*min, *max};
}

Result<MerchantAndAmounts> merchantAndAmounts(const MerchantAndAmountFields &fields)
{
    const auto name = [](const char *text) {
        return QCoreApplication::translate("keel::FilterFields", text);
    };
    const Result<std::optional<qint64>> merchant = wholeNumberField(
        fields.merchant, name(QT_TRANSLATE_NOOP("keel::FilterFields", "merchant id")));
    if (!merchant)
        return merchant.error();
    const Result<WholeRange> amounts = wholeRangeFields(
        fields.minAmount, name(QT_TRANSLATE_NOOP("keel::FilterFields", "min amount")),
        fields.maxAmount, name(QT_TRANSLATE_NOOP("keel::FilterFields", "max amount")));
    if (!amounts)
        return amounts.error();
    return MerchantAndAmounts{merchant->value_or(0), *amounts};
}

Result<QDateTime> dayField(const QLineEdit *field, const QString &name)
{
    const QString text = field->text().trimmed();
    if (text.isEmpty())
        return QDateTime();
    const QDate day = QDate::fromString(text, Qt::ISODate);
    if (!day.isValid())
        return fieldError(name, QStringLiteral("invalid_filter"),
                          QCoreApplication::translate(
                              "keel::FilterFields", "%1 must be a day like 2026-11-30; got \"%2\"")
                              .arg(name, text));
    return day.startOfDay();
}

} // namespace keel
