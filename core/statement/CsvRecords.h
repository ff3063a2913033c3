#pragma once

#include "core/Result.h"

#include <QList>
#include <QStringList>
#include <QStringView>

namespace keel {

// One record of a CSV text and the line it starts on (1-based), for errors
// that name where the file is wrong.
struct CsvRecord {
    int line = 0;
    QStringList fields;
};

// Splits RFC 4180 text into records: fields separated by commas, quoted
// fields may hold commas, doubled quotes and line breaks; CRLF and LF both end
// a record; empty lines are skipped. An unterminated quote is an error.
Result<QList<CsvRecord>> splitCsvRecords(QStringView text);

} // namespace keel
