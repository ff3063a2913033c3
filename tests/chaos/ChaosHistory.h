#pragma once

#include "ChaosRecord.h"
#include "FaultPlan.h"

#include <QTextStream>

namespace keel::chaos {

// The smallest history that shows a violation: the violating request, the
// requests about the same money (a charge, its capture, its refunds), each
// with every answer it got, and under each request only the faults that
// fell while it was being answered (from a second before it was first sent
// to its last answer). A run with many violations prints the first `most`.
void printHistories(QTextStream &out, const QList<QByteArray> &violatingKeys,
                    const QList<Told> &record, const QList<Fault> &faults, int most = 10);

} // namespace keel::chaos
