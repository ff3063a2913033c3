#include "ui/AuditModel.h"

#include <QBrush>
#include <QLocale>
#include <QPalette>

namespace keel {

AuditModel::Pages AuditModel::pagesFrom(QueryWorker *worker)
{
    return pagesOn<AuditFilter, AuditPage, qint64>(
        worker, [](QSqlDatabase db, const AuditFilter &filter, std::optional<qint64> before) {
            return AuditQuery::page(db, filter, before, PageSize);
        });
}

AuditModel::AuditModel(Pages pages, QObject *parent)
    : PagedRows(
          std::move(pages), [](const AuditPage &page) { return page.entries; },
          [](const AuditPage &page) { return page.nextBefore; }, parent)
{}

int AuditModel::rowOf(qint64 seq) const
{
    for (qsizetype row = 0; row < rows().size(); ++row)
        if (rows().at(row).seq == seq)
            return int(row);
    return -1;
}

void AuditModel::setBrokenSeq(qint64 seq)
{
    if (seq == m_brokenSeq)
        return;
    m_brokenSeq = seq;
    if (!rows().isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int AuditModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AuditModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const AuditEntry &entry = rowAt(index.row());
    if (role == Qt::ForegroundRole)
        return entry.seq == m_brokenSeq ? QVariant(QBrush(Qt::red)) : QVariant();
    if (role == Qt::TextAlignmentRole)
        return index.column() == Seq ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (Column(index.column())) {
    case Seq:
        return entry.seq;
    case At:
        return QLocale().toString(entry.at.toLocalTime(), QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    case Actor:
        return entry.actor;
    case Action:
        return entry.action;
    case Object:
        return QString(entry.objectType + u':' + entry.objectId);
    case Detail:
        return entry.detail;
    case Hash:
        // The first 12 hex digits tell links apart; the tooltip has all 64.
        return role == Qt::ToolTipRole ? QString::fromLatin1(entry.hash.toHex())
                                       : QString::fromLatin1(entry.hash.toHex().left(12));
    case ColumnCount:
        break;
    }
    return {};
}

QVariant AuditModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char *const titles[] = {
        QT_TR_NOOP("Seq"),    QT_TR_NOOP("Time"),   QT_TR_NOOP("Who"), QT_TR_NOOP("Action"),
        QT_TR_NOOP("Object"), QT_TR_NOOP("Detail"), QT_TR_NOOP("Hash")};
    return section >= 0 && section < ColumnCount ? tr(titles[section]) : QVariant();
}

} // namespace keel
