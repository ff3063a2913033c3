#pragma once

#include "core/Result.h"

#include <QByteArray>
#include <QList>

namespace keel {

struct ZipEntry {
    QByteArray name; // as stored: UTF-8 when utf8Name, else the writer's code page
    bool utf8Name = false;
    QByteArray data;
};

// The files of a ZIP archive (stored or deflated entries), each checked
// against its CRC-32 and size. A truncated or corrupt archive, an encrypted
// or otherwise compressed entry, or one inflating past `limit` in all, is an
// error: nothing is returned from it.
Result<QList<ZipEntry>> readZip(const QByteArray &archive, qsizetype limit);

} // namespace keel
