#include "core/idempotency/Fingerprint.h"

#include <QCryptographicHash>

#include <algorithm>

namespace keel {

Fingerprint &Fingerprint::add(const QString &field, const QString &value)
{
    m_fields.append({field, value});
    return *this;
}

Fingerprint &Fingerprint::add(const QString &field, qint64 value)
{
    return add(field, QString::number(value));
}

Fingerprint &Fingerprint::add(const QString &field, bool value)
{
    return add(field, value ? QStringLiteral("true") : QStringLiteral("false"));
}

QString Fingerprint::canonical() const
{
    QList<std::pair<QString, QString>> sorted = m_fields;
    std::sort(sorted.begin(), sorted.end());
    QString text = m_endpoint + u'\n';
    for (const auto &[field, value] : sorted) {
        // Length-prefixed so that no value can impersonate a field boundary.
        text += field + u'=' + QString::number(value.size()) + u':' + value + u'\n';
    }
    return text;
}

QByteArray Fingerprint::hash() const
{
    return QCryptographicHash::hash(canonical().toUtf8(), QCryptographicHash::Sha256);
}

} // namespace keel
