#include "core/read/CsvFile.h"

#include <QIODevice>

namespace keel {

QString CsvFile::field(const QString &value)
{
    if (!value.contains(u',') && !value.contains(u'"') && !value.contains(u'\n') &&
        !value.contains(u'\r') && !value.startsWith(u'#'))
        return value;
    QString escaped = value;
    escaped.replace(u'"', QStringLiteral("\"\""));
    return u'"' + escaped + u'"';
}

Status CsvFile::comment(const QString &line)
{
    QString oneLine = line;
    oneLine.replace(u'\n', u' ').replace(u'\r', u' ');
    return write(QStringLiteral("# ") + oneLine);
}

Status CsvFile::row(const QStringList &fields)
{
    QStringList quoted;
    quoted.reserve(fields.size());
    for (const QString &value : fields)
        quoted << field(value);
    if (Status written = write(quoted.join(u',')); !written)
        return written;
    ++m_rows;
    return {};
}

Status CsvFile::write(const QString &line)
{
    const QByteArray bytes = (line + QStringLiteral("\r\n")).toUtf8();
    if (m_out.write(bytes) != bytes.size())
        return makeError(ErrorKind::Failed,
                         QStringLiteral("cannot write the file: %1").arg(m_out.errorString()));
    m_hash.addData(bytes);
    return {};
}

ExportSummary CsvFile::summary() const
{
    return {qMax<qint64>(m_rows, 0), QString::fromLatin1(m_hash.result().toHex())};
}

} // namespace keel
