#include "core/outbox/AmqpAddress.h"

#include <QRegularExpression>
#include <QUrl>

namespace keel {

Result<AmqpAddress> AmqpAddress::parse(const QString &text)
{
    const QUrl url(text, QUrl::StrictMode);
    if (!url.isValid() || url.scheme() != QLatin1String("amqp") || url.host().isEmpty())
        return fieldError(QStringLiteral("amqp"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("the broker address must look like "
                                         "amqp://USER:PASS@HOST:PORT/VHOST"));
    AmqpAddress address;
    address.host = url.host();
    address.port = url.port(5672);
    if (!url.userName().isEmpty())
        address.user = url.userName(QUrl::FullyDecoded);
    if (!url.password().isEmpty())
        address.password = url.password(QUrl::FullyDecoded);
    const QString path = url.path(QUrl::FullyEncoded);
    // The vhost is one path segment. Anything else is most likely two URLs
    // run together, and would carry the second one's password into every
    // message that names this address.
    static const QRegularExpression notOneSegment(QStringLiteral("[/,@]"));
    if (path.size() > 1 && path.mid(1).contains(notOneSegment))
        return fieldError(QStringLiteral("amqp"), QStringLiteral("parameter_invalid"),
                          QStringLiteral("the broker's vhost must be one path segment (write / "
                                         "as %2F); give several nodes as separate URLs"));
    if (path.size() > 1)
        address.vhost = QUrl::fromPercentEncoding(path.mid(1).toUtf8());
    return address;
}

QString AmqpAddress::url() const
{
    QUrl url;
    url.setScheme(QStringLiteral("amqp"));
    url.setHost(host);
    url.setPort(port);
    url.setUserName(user);
    url.setPassword(password);
    url.setPath(QLatin1Char('/') + QString::fromLatin1(QUrl::toPercentEncoding(vhost)),
                QUrl::StrictMode);
    return url.toString(QUrl::FullyEncoded);
}

QString AmqpAddress::redacted() const
{
    return QStringLiteral("amqp://%1@%2:%3/%4")
        .arg(user, host)
        .arg(port)
        .arg(QString::fromLatin1(QUrl::toPercentEncoding(vhost)));
}

} // namespace keel
