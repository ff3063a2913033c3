#pragma once

#include <QAbstractItemView>
#include <QStringList>

class QDateTime;
class QTableWidget;
class QWidget;

namespace keel {

// The read-only lists of the console's views: whole rows selected, no
// editing, no row numbers, the last column stretched.
QTableWidget *
makeListTable(const QStringList &headers, const QString &accessibleName, QWidget *parent,
              QAbstractItemView::SelectionMode selection = QAbstractItemView::SingleSelection);
void fillRow(QTableWidget *table, int row, const QStringList &cells);
// A timestamp in this machine's zone, as every list writes it.
QString localTimeText(const QDateTime &at);

} // namespace keel
