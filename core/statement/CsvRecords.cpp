#include "core/statement/CsvRecords.h"

namespace keel {
namespace {

class CsvSplitter final {
public:
    CsvSplitter(QStringView text, const std::function<Status(const CsvRecord &)> &visit)
        : m_text(text), m_visit(visit)
    {}

    Status split()
    {
        while (m_at < m_text.size()) {
            if (Status read = readRecord(); !read)
                return read;
        }
        return {};
    }

private:
    Status readRecord()
    {
        CsvRecord record{m_line, {}};
        for (;;) {
            Result<QString> field = readField();
            if (!field)
                return field.error();
            record.fields.append(*field);
            if (m_at < m_text.size() && m_text[m_at] == u',') {
                ++m_at;
                continue;
            }
            break;
        }
        skipLineEnd();
        const bool blank = record.fields.size() == 1 && record.fields.constFirst().isEmpty();
        return blank ? Status{} : m_visit(record);
    }

    Result<QString> readField()
    {
        if (m_at < m_text.size() && m_text[m_at] == u'"')
            return readQuoted();
        const qsizetype start = m_at;
        while (m_at < m_text.size() && m_text[m_at] != u',' && m_text[m_at] != u'\n' &&
               m_text[m_at] != u'\r')
            ++m_at;
        return m_text.mid(start, m_at - start).toString();
    }

    Result<QString> readQuoted()
    {
        const int openedOn = m_line;
        QString value;
        ++m_at;
        while (m_at < m_text.size()) {
            const QChar c = m_text[m_at++];
            if (c == u'"') {
                if (m_at < m_text.size() && m_text[m_at] == u'"') {
                    value.append(u'"');
                    ++m_at;
                    continue;
                }
                return value;
            }
            if (c == u'\n')
                ++m_line;
            value.append(c);
        }
        return makeError(ErrorKind::Usage,
                         QStringLiteral("line %1: a quoted field is never closed").arg(openedOn));
    }

    void skipLineEnd()
    {
        if (m_at < m_text.size() && m_text[m_at] == u'\r')
            ++m_at;
        if (m_at < m_text.size() && m_text[m_at] == u'\n')
            ++m_at;
        ++m_line;
    }

    QStringView m_text;
    qsizetype m_at = 0;
    int m_line = 1;
    const std::function<Status(const CsvRecord &)> &m_visit;
};

} // namespace

Status forEachCsvRecord(QStringView text, const std::function<Status(const CsvRecord &)> &visit)
{
    return CsvSplitter(text, visit).split();
}

} // namespace keel
