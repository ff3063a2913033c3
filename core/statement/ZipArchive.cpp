#include "core/statement/ZipArchive.h"

#include <zlib.h>

namespace keel {
namespace {

constexpr quint32 EndOfDirectory = 0x06054b50;
constexpr quint32 DirectoryEntry = 0x02014b50;
constexpr quint32 LocalHeader = 0x04034b50;

Error broken(const QString &why)
{
    return makeError(ErrorKind::Usage, QStringLiteral("the ZIP archive is broken: %1").arg(why));
}

class Reader final {
public:
    explicit Reader(const QByteArray &bytes) : m_bytes(bytes) {}

    bool has(qsizetype at, qsizetype size) const
    {
        return at >= 0 && size >= 0 && at <= m_bytes.size() - size;
    }
    quint32 u16(qsizetype at) const
    {
        return quint32(quint8(m_bytes[at])) | quint32(quint8(m_bytes[at + 1])) << 8;
    }
    quint32 u32(qsizetype at) const { return u16(at) | u16(at + 2) << 16; }
    QByteArray slice(qsizetype at, qsizetype size) const { return m_bytes.mid(at, size); }
    qsizetype size() const { return m_bytes.size(); }

private:
    const QByteArray &m_bytes;
};

// The end-of-directory record, searched from the end past any comment.
Result<qsizetype> endOfDirectory(const Reader &zip)
{
    for (qsizetype at = zip.size() - 22; at >= 0 && at >= zip.size() - 22 - 65535; --at)
        if (zip.u32(at) == EndOfDirectory)
            return at;
    return broken(QStringLiteral("no end-of-directory record (truncated?)"));
}

Result<QByteArray> inflated(const QByteArray &compressed, qsizetype expected)
{
    z_stream stream{};
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK)
        return broken(QStringLiteral("zlib could not start"));
    QByteArray out(expected, Qt::Uninitialized);
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(compressed.constData()));
    stream.avail_in = uInt(compressed.size());
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = uInt(out.size());
    const int status = inflate(&stream, Z_FINISH);
    const qsizetype produced = qsizetype(stream.total_out);
    inflateEnd(&stream);
    if (status != Z_STREAM_END || produced != expected)
        return broken(QStringLiteral("an entry does not inflate to its stated size"));
    return out;
}

Result<ZipEntry> entryAt(const Reader &zip, qsizetype at, qsizetype *next)
{
    if (!zip.has(at, 46) || zip.u32(at) != DirectoryEntry)
        return broken(QStringLiteral("a directory entry is missing"));
    const quint32 flags = zip.u16(at + 8);
    const quint32 method = zip.u16(at + 10);
    const quint32 crc = zip.u32(at + 16);
    const qsizetype packed = zip.u32(at + 20);
    const qsizetype unpacked = zip.u32(at + 24);
    const qsizetype nameLength = zip.u16(at + 28);
    const qsizetype skipped = zip.u16(at + 30) + zip.u16(at + 32);
    const qsizetype local = zip.u32(at + 42);
    if (!zip.has(at + 46, nameLength + skipped))
        return broken(QStringLiteral("a directory entry is cut off"));
    *next = at + 46 + nameLength + skipped;
    ZipEntry entry{zip.slice(at + 46, nameLength), (flags & 0x800) != 0, {}};
    if (flags & 0x1)
        return broken(QStringLiteral("an entry is encrypted"));
    if (!zip.has(local, 30) || zip.u32(local) != LocalHeader)
        return broken(QStringLiteral("an entry's local header is missing"));
    const qsizetype data = local + 30 + zip.u16(local + 26) + zip.u16(local + 28);
    if (!zip.has(data, packed))
        return broken(QStringLiteral("an entry's data is cut off"));
    const QByteArray stored = zip.slice(data, packed);
    if (method == 0) {
        if (packed != unpacked)
            return broken(QStringLiteral("a stored entry's sizes disagree"));
        entry.data = stored;
    } else if (method == 8) {
        Result<QByteArray> out = inflated(stored, unpacked);
        if (!out)
            return out.error();
        entry.data = *out;
    } else {
        return broken(QStringLiteral("an entry uses compression method %1").arg(method));
    }
    if (crc32(0, reinterpret_cast<const Bytef *>(entry.data.constData()),
              uInt(entry.data.size())) != crc)
        return broken(QStringLiteral("an entry's CRC-32 does not match"));
    return entry;
}

} // namespace

Result<QList<ZipEntry>> readZip(const QByteArray &archive, qsizetype limit)
{
    const Reader zip(archive);
    Result<qsizetype> end = endOfDirectory(zip);
    if (!end)
        return end.error();
    const qsizetype count = zip.u16(*end + 10);
    qsizetype at = zip.u32(*end + 16);
    QList<ZipEntry> entries;
    qsizetype total = 0;
    for (qsizetype i = 0; i < count; ++i) {
        qsizetype next = 0;
        if (zip.has(at, 46) && (total += zip.u32(at + 24)) > limit)
            return broken(QStringLiteral("it inflates past %1 bytes").arg(limit));
        Result<ZipEntry> entry = entryAt(zip, at, &next);
        if (!entry)
            return entry.error();
        entries.append(*entry);
        at = next;
    }
    return entries;
}

} // namespace keel
