#include "ui/HistoryModel.h"

#include <QLocale>

namespace keel {

HistoryModel::Pages HistoryModel::pagesFrom(QueryWorker *worker)
{
    return pagesOn<HistoryFilter, HistoryPage, HistoryCursor>(
        worker,
        [](QSqlDatabase db, const HistoryFilter &filter, std::optional<HistoryCursor> after) {
            return HistoryQuery::page(db, filter, after, PageSize);
        });
}

HistoryModel::HistoryModel(Pages pages, QObject *parent)
    : PagedRows(
          std::move(pages), [](const HistoryPage &page) { return page.rows; },
          [](const HistoryPage &page) { return page.next; }, parent)
{}

int HistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HistoryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const HistoryRow &row = rowAt(index.row());
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Amount && index.column() <= Refunded
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (Column(index.column())) {
    case Charge:
        return row.publicId;
    case Created:
        return QLocale().toString(row.created.toLocalTime(), QLocale::ShortFormat);
    case Merchant:
        return QStringLiteral("%1 (%2)").arg(row.merchantName).arg(row.merchantId);
    case OrderNo:
        return row.outTradeNo;
    case Amount:
        return QString(HistoryQuery::formatAmount(row.amount, row.exponent) + u' ' + row.currency);
    case Captured:
        return HistoryQuery::formatAmount(row.amountCaptured, row.exponent);
    case Refunded:
        return HistoryQuery::formatAmount(row.amountRefunded, row.exponent);
    case State:
        return row.state;
    case ColumnCount:
        break;
    }
    return {};
}

QVariant HistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char *const titles[] = {QT_TR_NOOP("Charge"),   QT_TR_NOOP("Created"),
                                         QT_TR_NOOP("Merchant"), QT_TR_NOOP("Order no."),
                                         QT_TR_NOOP("Amount"),   QT_TR_NOOP("Captured"),
                                         QT_TR_NOOP("Refunded"), QT_TR_NOOP("State")};
    return section >= 0 && section < ColumnCount ? tr(titles[section]) : QVariant();
}

} // namespace keel
