#include "ui/ListTables.h"

#include <QDateTime>
#include <QHeaderView>
#include <QLocale>
#include <QTableWidget>

namespace keel {

QTableWidget *makeListTable(const QStringList &headers, const QString &accessibleName,
                            QWidget *parent, QAbstractItemView::SelectionMode selection)
{
    auto *table = new QTableWidget(0, int(headers.size()), parent);
    table->setHorizontalHeaderLabels(headers);
    table->setAccessibleName(accessibleName);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(selection);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setStretchLastSection(true);
    return table;
}

void fillRow(QTableWidget *table, int row, const QStringList &cells)
{
    for (int column = 0; column < cells.size(); ++column)
        table->setItem(row, column, new QTableWidgetItem(cells[column]));
}

QString localTimeText(const QDateTime &at)
{
    return QLocale().toString(at.toLocalTime(), QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

} // namespace keel
