#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>

namespace keel {

// A request's parameters, flattened the way Stripe's form encoding writes
// them: "amount", "metadata[order]". JSON bodies are flattened to the same
// shape, so the rest of keel sees one form whatever the client sent.
class RequestParams final {
public:
    // application/x-www-form-urlencoded. Duplicate keys and invalid UTF-8 are errors.
    static Result<RequestParams> fromForm(const QByteArray &body);
    // A JSON object; nested objects become "key[sub]". Duplicate keys,
    // truncation, trailing data and invalid UTF-8 are errors.
    static Result<RequestParams> fromJson(const QByteArray &body);
    // Chooses by Content-Type; an empty body is no parameters.
    static Result<RequestParams> fromBody(const QByteArray &contentType, const QByteArray &body);

    std::optional<QString> value(const QString &key) const;
    QString valueOr(const QString &key, const QString &fallback = {}) const;
    bool has(const QString &key) const { return value(key).has_value(); }
    // Keys not in `allowed`; "prefix[" entries in `allowed` admit any sub-key.
    QStringList unknownKeys(const QStringList &allowed) const;
    // The sub-keys and values under "prefix[...]".
    QList<std::pair<QString, QString>> group(const QString &prefix) const;
    const QList<std::pair<QString, QString>> &entries() const { return m_entries; }

private:
    Status add(const QString &key, const QString &value);
    QList<std::pair<QString, QString>> m_entries;
};

} // namespace keel
