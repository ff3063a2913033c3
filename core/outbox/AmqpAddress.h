#pragma once

#include "core/Result.h"

#include <QString>

namespace keel {

// Where a RabbitMQ broker is: amqp://USER:PASS@HOST:PORT/VHOST (port 5672
// and vhost "/" when left out; the vhost is percent-encoded, "%2F" is "/").
struct AmqpAddress {
    QString host = QStringLiteral("127.0.0.1");
    int port = 5672;
    QString user = QStringLiteral("guest");
    QString password = QStringLiteral("guest");
    QString vhost = QStringLiteral("/");

    static Result<AmqpAddress> parse(const QString &url);
    // The address with the password left out, for logs and messages.
    QString redacted() const;
    QString url() const;
};

} // namespace keel
