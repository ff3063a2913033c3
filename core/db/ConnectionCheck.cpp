#include "core/db/ConnectionCheck.h"

#include "core/db/ConnectionFailure.h"
#include "core/db/ConnectionSettings.h"

#include <libpq-fe.h>

#include <memory>

namespace keel {

ConnectionCheck ConnectionCheck::run(const ConnectionSettings &settings)
{
    ConnectionSettings bounded = settings;
    // A dialog should not hang on an unreachable host for libpq's unbounded default.
    bounded.setDefault(QStringLiteral("connect_timeout"), QStringLiteral("10"));
    const std::unique_ptr<PGconn, decltype(&PQfinish)> conn(
        PQconnectdb(bounded.conninfo().toUtf8().constData()), &PQfinish);
    ConnectionCheck check;
    if (!conn) {
        check.message = QStringLiteral("out of memory");
        return check;
    }
    if (PQstatus(conn.get()) == CONNECTION_OK) {
        check.outcome = Outcome::Connected;
        check.usedPassword = PQconnectionUsedPassword(conn.get()) != 0;
        return check;
    }
    check.message = describeConnectionFailure(QString::fromUtf8(PQerrorMessage(conn.get())));
    if (PQconnectionNeedsPassword(conn.get()))
        check.outcome = Outcome::NeedsPassword;
    else if (PQconnectionUsedPassword(conn.get()))
        check.outcome = Outcome::PasswordRefused;
    else
        check.outcome = Outcome::Failed;
    return check;
}

} // namespace keel
