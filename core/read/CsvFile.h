#pragma once

#include "core/Result.h"

#include <QCryptographicHash>
#include <QStringList>

class QIODevice;

namespace keel {

// What an export wrote, for its audit entry.
struct ExportSummary {
    qint64 rows = 0;
    QString sha256; // hex, of every byte written
};

// A CSV file an export writes: '#' lines at the top saying what it holds
// (the filter it was made with), then RFC 4180 rows; the SHA-256 of every
// byte is kept, so the audit entry names exactly this file.
class CsvFile final {
public:
    explicit CsvFile(QIODevice &out) : m_out(out) {}

    Status comment(const QString &line);
    Status row(const QStringList &fields);
    ExportSummary summary() const;

    static QString field(const QString &value);

private:
    Status write(const QString &line);

    QIODevice &m_out;
    QCryptographicHash m_hash{QCryptographicHash::Sha256};
    qint64 m_rows = -1; // the header row is not counted
};

} // namespace keel
