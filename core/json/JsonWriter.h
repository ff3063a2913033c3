#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

#include <utility>

namespace keel {

// Writes compact JSON. Integers are written as integers (never via double), so
// amounts up to int64 survive exactly.
class JsonWriter final {
public:
    // {"key": "value", ...} of text fields, in the order given.
    static QByteArray textObject(const QList<std::pair<QString, QString>> &fields);

    JsonWriter &beginObject();
    JsonWriter &endObject();
    JsonWriter &beginArray();
    JsonWriter &endArray();
    JsonWriter &key(const QString &name);

    JsonWriter &value(const QString &text);
    JsonWriter &value(const char *text) { return value(QString::fromUtf8(text)); }
    JsonWriter &value(qint64 number);
    JsonWriter &value(int number) { return value(qint64(number)); }
    JsonWriter &value(bool flag);
    JsonWriter &null();
    JsonWriter &raw(const QByteArray &json); // an already serialised value

    // key + value in one call; an empty optional writes null.
    template <typename T>
    JsonWriter &field(const QString &name, const T &v)
    {
        key(name);
        return value(v);
    }
    JsonWriter &field(const QString &name, const std::optional<QString> &v)
    {
        key(name);
        return v ? value(*v) : null();
    }

    QByteArray take() { return std::move(m_out); }
    const QByteArray &data() const { return m_out; }

    static QByteArray quoted(const QString &text);

private:
    void separate();
    QByteArray m_out;
    bool m_needComma = false;
};

} // namespace keel
