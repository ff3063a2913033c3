#include "core/statement/Gunzip.h"

#include <zlib.h>

namespace keel {

bool looksGzipped(const QByteArray &bytes)
{
    return bytes.size() >= 2 && quint8(bytes[0]) == 0x1f && quint8(bytes[1]) == 0x8b;
}

Result<QByteArray> gunzip(const QByteArray &bytes, qsizetype limit)
{
    z_stream stream{};
    // 16 + MAX_WBITS: a gzip header and trailer around the deflate stream.
    if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK)
        return makeError(ErrorKind::Failed, QStringLiteral("zlib could not start"));
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(bytes.constData()));
    stream.avail_in = uInt(bytes.size());
    QByteArray out;
    char chunk[65536];
    int status = Z_OK;
    while (status == Z_OK) {
        stream.next_out = reinterpret_cast<Bytef *>(chunk);
        stream.avail_out = sizeof chunk;
        status = inflate(&stream, Z_NO_FLUSH);
        out.append(chunk, qsizetype(sizeof chunk - stream.avail_out));
        if (out.size() > limit) {
            inflateEnd(&stream);
            return makeError(ErrorKind::Usage,
                             QStringLiteral("the gzip stream inflates past %1 bytes").arg(limit));
        }
        if (status == Z_BUF_ERROR && stream.avail_in == 0)
            break;
        // A file may hold several gzip members, one after the other.
        if (status == Z_STREAM_END && stream.avail_in > 0)
            status = inflateReset(&stream);
    }
    inflateEnd(&stream);
    if (status != Z_STREAM_END)
        return makeError(ErrorKind::Usage,
                         QStringLiteral("the gzip stream is truncated or corrupt"));
    return out;
}

} // namespace keel
