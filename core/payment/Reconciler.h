#pragma once

#include "core/Result.h"

#include <functional>

namespace keel {

class LibpqConnection;
class PgRows;
struct ChargeRecord;
class ReplyRenderer;
struct PaymentOutcome;
struct PaymentContext;

// Finds payments left in Authorizing or Capturing by a lost channel answer (or
// a crashed gateway) and settles each by asking the channel what happened
// (补单); and, for an hour after a capture was refused, asks whether a twin
// of it was made after all. A key whose holder died on such a payment gets the settled reply, so
// the client finds it stored whether or not it retries. Safe to run in several processes at once:
// rows are claimed with SKIP LOCKED, and each change is an optimistic transition.
class Reconciler final {
public:
    Reconciler(const PaymentContext &context, LibpqConnection &connection,
               const ReplyRenderer &replies);

    struct Report {
        int examined = 0;
        int resolved = 0;
        int failed = 0;
        int keysAnswered = 0; // keys whose holder died, answered with the settled outcome
    };
    // Handles up to `batch` payments untouched for at least `graceSeconds`.
    Result<Report> runOnce(int graceSeconds, int batch = 50);

private:
    Status settleCharges(int graceSeconds, int batch, Report &report);
    Status settleRefunds(int graceSeconds, int batch, Report &report);
    Status recheckRefusedCaptures(int graceSeconds, int batch, Report &report);
    // The rows of `sql`, whose $1 is the grace in seconds and $2 the batch.
    Result<PgRows> dueRows(const char *sql, int graceSeconds, int batch);
    // Each charge of `due` (merchant id, public id), read afresh, to `settle`.
    void forEachCharge(const PgRows &due, Report &report,
                       const std::function<void(ChargeRecord &)> &settle);
    void count(const PaymentOutcome &outcome, const QString &paymentId, const QString &resourceId,
               Report &report);

    const PaymentContext &m_context;
    LibpqConnection &m_connection;
    const ReplyRenderer &m_replies;
};

} // namespace keel
