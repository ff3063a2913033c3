#include "core/json/JsonWriter.h"

namespace keel {

QByteArray JsonWriter::textObject(const QList<std::pair<QString, QString>> &fields)
{
    JsonWriter json;
    json.beginObject();
    for (const auto &[key, text] : fields)
        json.field(key, text);
    json.endObject();
    return json.take();
}

void JsonWriter::separate()
{
    if (m_needComma)
        m_out += ',';
    m_needComma = false;
}

JsonWriter &JsonWriter::beginObject()
{
    separate();
    m_out += '{';
    return *this;
}

JsonWriter &JsonWriter::endObject()
{
    m_out += '}';
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::beginArray()
{
    separate();
    m_out += '[';
    return *this;
}

JsonWriter &JsonWriter::endArray()
{
    m_out += ']';
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::key(const QString &name)
{
    separate();
    m_out += quoted(name);
    m_out += ':';
    return *this;
}

JsonWriter &JsonWriter::value(const QString &text)
{
    separate();
    m_out += quoted(text);
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::value(qint64 number)
{
    separate();
    m_out += QByteArray::number(number);
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::value(bool flag)
{
    separate();
    m_out += flag ? "true" : "false";
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::null()
{
    separate();
    m_out += "null";
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::raw(const QByteArray &json)
{
    separate();
    m_out += json;
    m_needComma = true;
    return *this;
}

QByteArray JsonWriter::quoted(const QString &text)
{
    QByteArray out;
    out.reserve(text.size() + 2);
    out += '"';
    for (const char c : text.toUtf8()) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20)
                out += "\\u00" +
                       QByteArray::number(static_cast<unsigned char>(c), 16).rightJustified(2, '0');
            else
                out += c;
        }
    }
    out += '"';
    return out;
}

} // namespace keel
