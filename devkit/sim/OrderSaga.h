#pragma once

#include <QByteArray>
#include <QString>

namespace keel {

// The order saga keel's traffic generators send (POST /v1/sagas): reserve
// stock, charge the card, confirm the order, notify the customer. Stock and
// confirmation are undone if a later step fails; each HTTP step calls
// `participant` + /reserve, /release, /confirm, /unconfirm or /notify.
// A failed step is tried again after `backoffMs`, doubling up to twice that.
QByteArray orderSagaDefinition(const QString &participant, qint64 amount, const QString &currency,
                               const QString &businessKey, int backoffMs = 50);

} // namespace keel
