#pragma once

#include <QByteArray>

namespace keel {

struct SagaRecord;

// A saga in the API's JSON: the saga, its steps and, when the record carries
// its event log, each step's attempts with their verdicts, errors and timings.
QByteArray renderSaga(const SagaRecord &saga);
// A Stripe-style list object of sagas (without attempts).
QByteArray renderSagaList(const QList<SagaRecord> &sagas, bool hasMore);

} // namespace keel
