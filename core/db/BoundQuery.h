#pragma once

#include "core/Result.h"

#include <QVariantList>

class QSqlQuery;
class QString;

namespace keel {

// Prepares `sql` on `query` (forward only), binds `binds` in order and runs
// it; the error carries the server's message and SQLSTATE (QtSqlConnections::exec).
Status runBound(QSqlQuery &query, const QString &sql, const QVariantList &binds = {});

} // namespace keel
