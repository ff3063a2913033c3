#pragma once

#include "core/Result.h"

#include <QByteArray>

namespace keel {

// Whether `bytes` start with the gzip magic number.
bool looksGzipped(const QByteArray &bytes);

// The contents of a gzip stream (RFC 1952). A truncated or corrupt stream, or
// one that would inflate past `limit` bytes, is an error: nothing is returned
// from it.
Result<QByteArray> gunzip(const QByteArray &bytes, qsizetype limit);

} // namespace keel
