#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <utility>

namespace keel {

// SHA-256 over a canonical form of a validated request: the endpoint, then the
// whitelisted fields as key=value lines sorted by key, values already
// normalised by validation (amounts as plain integers, currencies upper case).
// Transport details — JSON or form, field order, timestamps, client address —
// never enter it, so the same order sent either way has one fingerprint.
class Fingerprint final {
public:
    explicit Fingerprint(QString endpoint) : m_endpoint(std::move(endpoint)) {}

    Fingerprint &add(const QString &field, const QString &value);
    Fingerprint &add(const QString &field, qint64 value);
    Fingerprint &add(const QString &field, bool value);

    QString canonical() const;
    QByteArray hash() const;

private:
    QString m_endpoint;
    QList<std::pair<QString, QString>> m_fields;
};

} // namespace keel
