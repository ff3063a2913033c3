#pragma once

#include "core/Result.h"

namespace keel {

class PgConnection;
class ReplyRenderer;
struct PaymentContext;

// Finds payments left in Authorizing or Capturing by a lost channel answer (or
// a crashed gateway) and settles each by asking the channel what happened
// (补单). Safe to run in several processes at once: rows are claimed with
// SKIP LOCKED, and each change is an optimistic transition.
class Reconciler final {
public:
    Reconciler(const PaymentContext &context, PgConnection &connection,
               const ReplyRenderer &replies);

    struct Report {
        int examined = 0;
        int resolved = 0;
        int failed = 0;
    };
    // Handles up to `batch` payments untouched for at least `graceSeconds`.
    Result<Report> runOnce(int graceSeconds, int batch = 50);

private:
    const PaymentContext &m_context;
    PgConnection &m_connection;
    const ReplyRenderer &m_replies;
};

} // namespace keel
