#include "core/api/RequestParams.h"

#include <QStringDecoder>

#include <QUrl>
#include <functional>

namespace keel {
namespace {

std::optional<QString> strictUtf8(const QByteArray &bytes)
{
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    QString text = decoder.decode(bytes);
    if (decoder.hasError())
        return std::nullopt;
    return text;
}

Error malformed(const QString &why)
{
    return makeError(ErrorKind::Usage, why);
}

// A small RFC 8259 reader for request bodies: objects of strings, numbers,
// booleans, null and nested objects. It exists because keel must refuse what
// lenient parsers accept (duplicate keys) and must keep numbers as written.
class JsonReader final {
public:
    explicit JsonReader(const QByteArray &text) : m_text(text) {}

    Status readDocument(const std::function<Status(const QString &, const QString &)> &emit)
    {
        m_emit = emit;
        skipSpace();
        if (peek() != '{')
            return error(QStringLiteral("the body must be a JSON object"));
        if (Status status = readObject(QString(), 0); !status)
            return status;
        skipSpace();
        if (m_pos != m_text.size())
            return error(QStringLiteral("unexpected data after the JSON object"));
        return {};
    }

private:
    char peek() const { return m_pos < m_text.size() ? m_text.at(m_pos) : '\0'; }
    bool atEnd() const { return m_pos >= m_text.size(); }
    void skipSpace()
    {
        while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
            ++m_pos;
    }
    Error error(const QString &why) const
    {
        return malformed(QStringLiteral("invalid JSON at byte %1: %2").arg(m_pos).arg(why));
    }

    Status readObject(const QString &prefix, int depth)
    {
        if (depth > 4)
            return error(QStringLiteral("objects nest too deeply"));
        ++m_pos; // '{'
        QStringList seen;
        skipSpace();
        if (peek() == '}') {
            ++m_pos;
            return {};
        }
        while (true) {
            skipSpace();
            if (peek() != '"')
                return error(atEnd() ? QStringLiteral("the body ends inside an object")
                                     : QStringLiteral("expected a quoted key"));
            Result<QString> key = readString();
            if (!key)
                return key.error();
            if (seen.contains(*key))
                return malformed(QStringLiteral("duplicate JSON key \"%1\"")
                                     .arg(prefix.isEmpty() ? *key : prefix + u'[' + *key + u']'));
            seen << *key;
            const QString path = prefix.isEmpty() ? *key : prefix + u'[' + *key + u']';
            skipSpace();
            if (peek() != ':')
                return error(QStringLiteral("expected ':' after key \"%1\"").arg(path));
            ++m_pos;
            skipSpace();
            if (Status status = readValue(path, depth); !status)
                return status;
            skipSpace();
            if (peek() == ',') {
                ++m_pos;
                continue;
            }
            if (peek() == '}') {
                ++m_pos;
                return {};
            }
            return error(atEnd() ? QStringLiteral("the body ends inside an object")
                                 : QStringLiteral("expected ',' or '}'"));
        }
    }

    Status readValue(const QString &path, int depth)
    {
        const char c = peek();
        if (c == '{')
            return readObject(path, depth + 1);
        if (c == '[')
            return malformed(QStringLiteral("%1: arrays are not accepted here").arg(path));
        if (c == '"') {
            Result<QString> text = readString();
            if (!text)
                return text.error();
            return m_emit(path, *text);
        }
        if (c == '-' || (c >= '0' && c <= '9'))
            return readNumber(path);
        for (const char *literal : {"true", "false", "null"}) {
            const QByteArray word(literal);
            if (m_text.mid(m_pos, word.size()) == word) {
                m_pos += word.size();
                return m_emit(path, word == "null" ? QString() : QString::fromLatin1(word));
            }
        }
        return error(atEnd() ? QStringLiteral("the body ends before a value")
                             : QStringLiteral("unexpected character"));
    }

    // Numbers are passed on exactly as written; the field's own validation
    // decides what it accepts (amounts take digits only).
    Status readNumber(const QString &path)
    {
        const qsizetype start = m_pos;
        if (peek() == '-')
            ++m_pos;
        if (!(peek() >= '0' && peek() <= '9'))
            return error(QStringLiteral("malformed number"));
        while (!atEnd() && ((peek() >= '0' && peek() <= '9') || peek() == '.' || peek() == 'e' ||
                            peek() == 'E' || peek() == '+' || peek() == '-'))
            ++m_pos;
        return m_emit(path, QString::fromLatin1(m_text.mid(start, m_pos - start)));
    }

    Result<QString> readString()
    {
        ++m_pos; // opening quote
        QByteArray raw;
        while (true) {
            if (atEnd())
                return error(QStringLiteral("the body ends inside a string"));
            const char c = m_text.at(m_pos++);
            if (c == '"')
                break;
            if (static_cast<unsigned char>(c) < 0x20)
                return error(QStringLiteral("control character in a string"));
            if (c != '\\') {
                raw += c;
                continue;
            }
            if (atEnd())
                return error(QStringLiteral("the body ends inside a string"));
            const char escape = m_text.at(m_pos++);
            switch (escape) {
            case '"':
                raw += '"';
                break;
            case '\\':
                raw += '\\';
                break;
            case '/':
                raw += '/';
                break;
            case 'b':
                raw += '\b';
                break;
            case 'f':
                raw += '\f';
                break;
            case 'n':
                raw += '\n';
                break;
            case 'r':
                raw += '\r';
                break;
            case 't':
                raw += '\t';
                break;
            case 'u': {
                Result<char32_t> code = readHex4();
                if (!code)
                    return code.error();
                char32_t point = *code;
                if (point >= 0xD800 && point <= 0xDBFF) {
                    if (m_text.mid(m_pos, 2) != "\\u")
                        return error(QStringLiteral("unpaired surrogate in a string"));
                    m_pos += 2;
                    Result<char32_t> low = readHex4();
                    if (!low || *low < 0xDC00 || *low > 0xDFFF)
                        return error(QStringLiteral("unpaired surrogate in a string"));
                    point = 0x10000 + ((point - 0xD800) << 10) + (*low - 0xDC00);
                } else if (point >= 0xDC00 && point <= 0xDFFF) {
                    return error(QStringLiteral("unpaired surrogate in a string"));
                }
                raw += QString::fromUcs4(&point, 1).toUtf8();
                break;
            }
            default:
                return error(QStringLiteral("unknown escape in a string"));
            }
        }
        std::optional<QString> text = strictUtf8(raw);
        if (!text)
            return error(QStringLiteral("a string is not valid UTF-8"));
        return *text;
    }

    Result<char32_t> readHex4()
    {
        if (m_pos + 4 > m_text.size())
            return error(QStringLiteral("the body ends inside a \\u escape"));
        bool ok = false;
        const uint value = m_text.mid(m_pos, 4).toUInt(&ok, 16);
        if (!ok)
            return error(QStringLiteral("malformed \\u escape"));
        m_pos += 4;
        return char32_t(value);
    }

    const QByteArray &m_text;
    qsizetype m_pos = 0;
    std::function<Status(const QString &, const QString &)> m_emit;
};

} // namespace

Status RequestParams::add(const QString &key, const QString &value)
{
    if (key.isEmpty())
        return malformed(QStringLiteral("a parameter has an empty name"));
    if (has(key))
        return malformed(QStringLiteral("parameter %1 is given more than once").arg(key));
    m_entries.append({key, value});
    return {};
}

Result<RequestParams> RequestParams::fromForm(const QByteArray &body)
{
    RequestParams params;
    for (const QByteArray &pair : body.split('&')) {
        if (pair.isEmpty())
            continue;
        const qsizetype equals = pair.indexOf('=');
        QByteArray key = equals < 0 ? pair : pair.left(equals);
        QByteArray value = equals < 0 ? QByteArray() : pair.mid(equals + 1);
        key.replace('+', ' ');
        value.replace('+', ' ');
        const std::optional<QString> decodedKey = strictUtf8(QByteArray::fromPercentEncoding(key));
        const std::optional<QString> decodedValue =
            strictUtf8(QByteArray::fromPercentEncoding(value));
        if (!decodedKey || !decodedValue)
            return malformed(QStringLiteral("the form body is not valid UTF-8"));
        if (Status added = params.add(*decodedKey, *decodedValue); !added)
            return added.error();
    }
    return params;
}

Result<RequestParams> RequestParams::fromJson(const QByteArray &body)
{
    RequestParams params;
    JsonReader reader(body);
    Status read = reader.readDocument(
        [&params](const QString &key, const QString &value) { return params.add(key, value); });
    if (!read)
        return read.error();
    return params;
}

Result<RequestParams> RequestParams::fromBody(const QByteArray &contentType, const QByteArray &body)
{
    const QByteArray type = contentType.split(';').constFirst().trimmed().toLower();
    if (body.trimmed().isEmpty())
        return RequestParams();
    if (type == "application/json")
        return fromJson(body);
    if (type.isEmpty() || type == "application/x-www-form-urlencoded")
        return fromForm(body);
    return makeError(ErrorKind::Usage,
                     QStringLiteral("unsupported Content-Type %1; send "
                                    "application/x-www-form-urlencoded or application/json")
                         .arg(QString::fromLatin1(type)));
}

std::optional<QString> RequestParams::value(const QString &key) const
{
    for (const auto &[name, value] : m_entries)
        if (name == key)
            return value;
    return std::nullopt;
}

QString RequestParams::valueOr(const QString &key, const QString &fallback) const
{
    return value(key).value_or(fallback);
}

QStringList RequestParams::unknownKeys(const QStringList &allowed) const
{
    QStringList unknown;
    for (const auto &entry : m_entries) {
        bool known = allowed.contains(entry.first);
        for (const QString &name : allowed)
            if (name.endsWith(u'[') && entry.first.startsWith(name) && entry.first.endsWith(u']'))
                known = true;
        if (!known)
            unknown << entry.first;
    }
    return unknown;
}

QList<std::pair<QString, QString>> RequestParams::group(const QString &prefix) const
{
    QList<std::pair<QString, QString>> members;
    const QString opening = prefix + u'[';
    for (const auto &[name, value] : m_entries)
        if (name.startsWith(opening) && name.endsWith(u']'))
            members.append({name.mid(opening.size(), name.size() - opening.size() - 1), value});
    return members;
}

} // namespace keel
