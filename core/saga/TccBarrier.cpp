#include "core/saga/TccBarrier.h"

#include "core/db/LibpqConnection.h"
#include "core/db/PgTransaction.h"

namespace keel {

QString barrierOutcomeName(TccBarrier::Outcome outcome)
{
    switch (outcome) {
    case TccBarrier::Outcome::Applied:
        return QStringLiteral("applied");
    case TccBarrier::Outcome::Duplicate:
        return QStringLiteral("duplicate");
    case TccBarrier::Outcome::EmptyRollback:
        return QStringLiteral("empty_rollback");
    case TccBarrier::Outcome::Hanging:
        return QStringLiteral("hanging");
    }
    return {};
}

Result<bool> TccBarrier::insert(const QString &gid, const QString &branchId, const QString &op,
                                const QString &reason)
{
    Result<PgRows> rows = m_connection.query(
        "INSERT INTO keel.tcc_barrier (gid, branch_id, op, reason) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (gid, branch_id, op) DO NOTHING",
        {gid.toUtf8(), branchId.toUtf8(), op.toUtf8(), reason.toUtf8()});
    if (!rows)
        return rows.error();
    return rows->affected() == 1;
}

Result<TccBarrier::Outcome> TccBarrier::call(const QString &gid, const QString &branchId,
                                             const QString &requestedOp,
                                             const std::function<Status(LibpqConnection &)> &work)
{
    const QString op = requestedOp == QLatin1String("action")       ? QStringLiteral("try")
                       : requestedOp == QLatin1String("compensate") ? QStringLiteral("cancel")
                                                                    : requestedOp;
    if (op != QLatin1String("try") && op != QLatin1String("confirm") &&
        op != QLatin1String("cancel"))
        return fieldError(QStringLiteral("op"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("op must be try, confirm or cancel (or action, "
                                         "compensate), not %1")
                              .arg(requestedOp));
    PgTransaction tx(m_connection);
    if (!tx.begun())
        return tx.begun().error();
    Outcome outcome = Outcome::Applied;
    if (op == QLatin1String("cancel")) {
        // Take the try's place first: if that works, the try never ran.
        Result<bool> tryAbsent =
            insert(gid, branchId, QStringLiteral("try"), QStringLiteral("empty_rollback"));
        if (!tryAbsent)
            return tryAbsent.error();
        Result<bool> first = insert(gid, branchId, op, QStringLiteral("normal"));
        if (!first)
            return first.error();
        outcome = !*first      ? Outcome::Duplicate
                  : *tryAbsent ? Outcome::EmptyRollback
                               : Outcome::Applied;
    } else {
        Result<bool> first = insert(gid, branchId, op, QStringLiteral("normal"));
        if (!first)
            return first.error();
        if (!*first && op == QLatin1String("try")) {
            // Either a repeat, or the cancel came first and took its place.
            Result<PgRows> reason = m_connection.query(
                "SELECT reason FROM keel.tcc_barrier WHERE gid = $1 AND branch_id = $2 "
                "AND op = 'try'",
                {gid.toUtf8(), branchId.toUtf8()});
            if (!reason)
                return reason.error();
            outcome = reason->size() > 0 && reason->text(0, 0) == QLatin1String("empty_rollback")
                          ? Outcome::Hanging
                          : Outcome::Duplicate;
        } else if (!*first) {
            outcome = Outcome::Duplicate;
        }
    }
    if (outcome == Outcome::Applied)
        if (Status done = work(m_connection); !done)
            return done.error();
    if (Status committed = tx.commit(); !committed)
        return committed.error();
    return outcome;
}

} // namespace keel
