#pragma once

#include <QByteArray>
#include <QString>

namespace keel {

// The order saga keel's traffic generators send (POST /v1/sagas): reserve
// stock, charge the card, confirm the order, notify the customer. Stock and
// confirmation are undone if a later step fails; each HTTP step calls
// `participant` + /reserve, /release, /confirm, /unconfirm or /notify.
QByteArray orderSagaDefinition(const QString &participant, qint64 amount, const QString &currency,
                               const QString &businessKey);

} // namespace keel
