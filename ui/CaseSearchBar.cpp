#include "ui/CaseSearchBar.h"

#include "ui/FilterFields.h"

#include <QHBoxLayout>
#include <QLineEdit>

namespace keel {

CaseSearchBar::CaseSearchBar(QWidget *parent)
    : QWidget(parent), m_reference(new QLineEdit(this)), m_merchant(new QLineEdit(this)),
      m_minAmount(new QLineEdit(this)), m_maxAmount(new QLineEdit(this)),
      m_from(new QLineEdit(this)), m_to(new QLineEdit(this))
{
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    const struct {
        QLineEdit *field;
        QString placeholder;
        QString name;
        int stretch;
    } fields[] = {
        {m_reference, tr("ch_…, saga_… or order no."), tr("Charge, saga or order number"), 3},
        {m_merchant, tr("merchant id"), tr("Merchant"), 1},
        {m_minAmount, tr("min amount"), tr("Minimum amount, in minor units"), 1},
        {m_maxAmount, tr("max amount"), tr("Maximum amount, in minor units"), 1},
        {m_from, tr("from YYYY-MM-DD"), tr("Opened from"), 1},
        {m_to, tr("before YYYY-MM-DD"), tr("Opened before"), 1},
    };
    for (const auto &field : fields) {
        field.field->setPlaceholderText(field.placeholder);
        field.field->setAccessibleName(field.name);
        field.field->setClearButtonEnabled(true);
        field.field->setToolTip(field.name);
        connect(field.field, &QLineEdit::returnPressed, this, &CaseSearchBar::searchRequested);
        row->addWidget(field.field, field.stretch);
    }
}

Status CaseSearchBar::narrow(SuspenseCaseFilter &filter) const
{
    const QString reference = m_reference->text().trimmed();
    if (reference.startsWith(QLatin1String("ch_")))
        filter.chargeId = reference;
    else if (reference.startsWith(QLatin1String("saga_")))
        filter.sagaId = reference;
    else
        filter.outTradeNo = reference;
    const Result<MerchantAndAmounts> common =
        merchantAndAmounts({m_merchant, m_minAmount, m_maxAmount});
    if (!common)
        return common.error();
    filter.merchantId = common->merchantId;
    filter.amountMin = common->amounts.min;
    filter.amountMax = common->amounts.max;
    const Result<QDateTime> from = dayField(m_from, tr("opened from"));
    if (!from)
        return from.error();
    const Result<QDateTime> to = dayField(m_to, tr("opened before"));
    if (!to)
        return to.error();
    if (from->isValid() && to->isValid() && *from >= *to)
        return fieldError(tr("opened from"), QStringLiteral("invalid_filter"),
                          tr("the first day must be before the last"));
    filter.openedFrom = *from;
    filter.openedTo = *to;
    return {};
}

QString CaseSearchBar::describe() const
{
    QStringList said;
    for (const QLineEdit *field : {m_reference, m_merchant, m_minAmount, m_maxAmount, m_from, m_to})
        if (!field->text().trimmed().isEmpty())
            said << field->accessibleName() + QStringLiteral(": ") + field->text().trimmed();
    return said.join(QStringLiteral("; "));
}

} // namespace keel
