#pragma once

#include "core/Result.h"

#include <QString>

#include <functional>

namespace keel {

class LibpqConnection;

// The barrier for TCC and saga participants that keep their data in
// PostgreSQL (a C++ counterpart of DTM's dtm_barrier). It runs the
// participant's local transaction together with a tcc_barrier row keyed by
// (gid, branch_id, op), which gives:
// - idempotency: a repeated try, confirm or cancel does nothing;
// - empty rollback: a cancel that arrives with no try before it succeeds
//   without work, and records that the try never ran;
// - anti-hanging: a try that arrives after its cancel does nothing.
// Saga actions and compensations map onto try and cancel.
class TccBarrier final {
public:
    explicit TccBarrier(LibpqConnection &connection) : m_connection(connection) {}

    enum class Outcome {
        Applied,       // the work ran and committed with the barrier row
        Duplicate,     // this operation ran before: nothing was done
        EmptyRollback, // a cancel with no try: nothing to undo, recorded as such
        Hanging,       // a try after its cancel: refused, nothing was done
    };

    // Runs `work` on the same connection inside the barrier's transaction; an
    // error from `work` rolls everything back (the barrier row too), so the
    // operation can be tried again. `op` is try, confirm or cancel (action
    // and compensate are accepted as try and cancel).
    Result<Outcome> call(const QString &gid, const QString &branchId, const QString &op,
                         const std::function<Status(LibpqConnection &)> &work);

private:
    Result<bool> insert(const QString &gid, const QString &branchId, const QString &op,
                        const QString &reason);

    LibpqConnection &m_connection;
};

QString barrierOutcomeName(TccBarrier::Outcome outcome);

} // namespace keel
