#include "core/db/BoundQuery.h"

#include "core/db/QtSqlConnections.h"

#include <QSqlQuery>

namespace keel {

Status runBound(QSqlQuery &query, const QString &sql, const QVariantList &binds)
{
    query.setForwardOnly(true);
    query.prepare(sql);
    for (const QVariant &value : binds)
        query.addBindValue(value);
    return QtSqlConnections::exec(query);
}

} // namespace keel
