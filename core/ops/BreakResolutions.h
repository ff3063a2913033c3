#pragma once

#include "core/ops/ActionDesk.h"

#include <QDate>

namespace keel {

struct ReconBreakRow;
struct ReconStatementRow;

// The guarded resolutions of a reconciliation break (migration 0026), and the
// withdrawal of a statement, as
// proposals for ActionDesk: a person proposes, a second approves, and the
// database checks again when it runs that each break is still as they saw it.
// The can… checks only say what the console offers; the database decides.
// None offers a break that awaits a run after a withdrawal (migration 0048).
namespace BreakResolutions {

// Two breaks that are one movement the channel reported under its own
// reference: a missing_at_keel and a missing_at_channel of one kind, currency
// and amount.
bool canMatch(const ReconBreakRow &first, const ReconBreakRow &second);
ProposalRequest match(const ReconBreakRow &first, const ReconBreakRow &second);

bool canAccept(const ReconBreakRow &found);
// Accepted until the end of `until` in the channel's time zone.
ProposalRequest accept(const ReconBreakRow &found, const QDate &until);

bool canAdjustFee(const ReconBreakRow &found);
ProposalRequest feeAdjustment(const ReconBreakRow &found);

// A payment the channel reported and then took back, in part or whole (a
// dispute lost): what keel holds beyond the channel leaves the clearing
// account, borne by the charge's merchant or booked as the company's
// operational loss (migration 0042). The database also checks the lines and
// that no money was ever parked on the charge.
enum class TakeBackBearer { Merchant, Loss };
bool canTakeBack(const ReconBreakRow &found);
ProposalRequest takeBack(const ReconBreakRow &found, TakeBackBearer bearer);

// A statement imported wrong, withdrawn (migration 0027): its lines no longer
// count, the fees its import booked are reversed, and a corrected file can
// be imported.
bool canWithdraw(const ReconStatementRow &statement);
ProposalRequest withdrawal(const ReconStatementRow &statement);

} // namespace BreakResolutions
} // namespace keel
