#pragma once

#include <QByteArray>
#include <QList>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

// libFuzzer's input as Qt bytes, and the fuzz targets' way to fail: a
// property that does not hold aborts, so libFuzzer keeps the input as a crash.
namespace keel::fuzz {

inline QByteArray bytes(const uint8_t *data, size_t size)
{
    return QByteArray(reinterpret_cast<const char *>(data), qsizetype(size));
}

// The input cut at its first `n` newlines into n+1 fields (missing ones empty).
inline QList<QByteArray> fields(const QByteArray &input, int n)
{
    QList<QByteArray> parts;
    qsizetype start = 0;
    for (int i = 0; i < n; ++i) {
        const qsizetype end = input.indexOf('\n', start);
        if (end < 0) {
            parts << input.mid(start);
            start = input.size();
        } else {
            parts << input.mid(start, end - start);
            start = end + 1;
        }
    }
    parts << input.mid(start);
    return parts;
}

[[noreturn]] inline void violated(const char *property)
{
    std::fprintf(stderr, "property violated: %s\n", property);
    std::abort();
}

inline void require(bool holds, const char *property)
{
    if (!holds)
        violated(property);
}

} // namespace keel::fuzz
