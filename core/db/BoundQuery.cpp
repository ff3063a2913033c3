#include "core/db/BoundQuery.h"

#include "core/db/Database.h"

#include <QSqlQuery>

namespace keel {

Status runBound(QSqlQuery &query, const QString &sql, const QVariantList &binds)
{
    query.setForwardOnly(true);
    query.prepare(sql);
    for (const QVariant &value : binds)
        query.addBindValue(value);
    return Database::exec(query);
}

} // namespace keel
