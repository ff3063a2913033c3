#pragma once

#include "ChaosChecks.h"

#include <QTextStream>

namespace keel {
class LibpqConnection;
}

namespace keel::test {
class HaFormation;
}

namespace keel::chaos {

class ChaosWorld;

// The checks of a run that are not about the clients' record (ChaosChecks):
// the HA formation it ran on, and the secrets in what it left behind.

// Exactly one writable node, the monitor's primary, the one `checked` reads.
void checkFormation(test::HaFormation &formation, LibpqConnection &checked, QTextStream &out,
                    Verdict &verdict);

// The repairs people made, and the rules around them: no saga parked without
// an open case (nor resolved with one), nothing queued left undone, every
// executed action in the audit chain exactly once, and the chain intact.
// Counts what was executed, by kind and outcome.
void checkRepairs(LibpqConnection &checked, Verdict &verdict);

// The simulated channel's own statements of every day the run touched,
// imported and reconciled as the service does it: any break is a difference
// between what the channel moved and what keel booked. `channel` is the one
// keel's records name (sim, or alipay when keel called it as Alipay), whose
// business day is cut in its own zone.
void checkReconciliation(LibpqConnection &checked, Verdict &verdict,
                         const QString &channel = QStringLiteral("sim"));

// No secret the run handed out appears in a log, a command line or /metrics.
void scanForSecrets(const QString &directory, ChaosWorld &world, Verdict &verdict);

} // namespace keel::chaos
