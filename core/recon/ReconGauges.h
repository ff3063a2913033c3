#pragma once

#include "core/Result.h"

namespace keel {

class LibpqConnection;

// Reads what open reconciliation breaks leave unexplained and hands it to
// /metrics (Metrics::setReconState). Fee and currency differences are not
// sums of money in one currency and are only counted.
Status refreshReconGauges(LibpqConnection &session);

} // namespace keel
