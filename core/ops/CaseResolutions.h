#pragma once

#include "core/ops/ActionDesk.h"

namespace keel {

struct SuspenseCaseRow;

// The guarded resolutions of a suspense case that the workbench builds in
// core, as proposals for ActionDesk. The can… checks only say what the
// console offers; the database decides when the proposal is made and again
// when it runs.
namespace CaseResolutions {

// Money the channel gave again after a take-back (a dispute reversed, or the
// statement that showed it withdrawn), which a run parked on the charge:
// it goes back to whoever bore the take-back, and the charge may be refunded
// again (migration 0044). The database checks that take-backs of the charge
// charged that account at least what the case holds.
enum class GiveBackTo { Merchant, Loss };
bool canGiveBack(const SuspenseCaseRow &held);
ProposalRequest giveBack(const SuspenseCaseRow &held, GiveBackTo to);

// The account that bears a case's money, the merchant's or the loss
// account, as keel.give_back_account() names it.
QString bearerAccount(const SuspenseCaseRow &row, bool merchant);

// Money a run parked as owed by the channel that it will not pay (a dispute
// lost, a payment it never made): charged to the merchant or borne as a
// loss, by an adjustment that takes it off suspense (migration 0050).
enum class OwedBy { Merchant, Loss };
bool canChargeOwed(const SuspenseCaseRow &owed);
ProposalRequest chargeOwed(const SuspenseCaseRow &owed, OwedBy by);

} // namespace CaseResolutions
} // namespace keel
