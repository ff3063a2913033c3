#pragma once

#include "core/Result.h"

#include <QList>
#include <QStringList>
#include <QStringView>

#include <functional>

namespace keel {

// One record of a CSV text and the line it starts on (1-based), for errors
// that name where the file is wrong.
struct CsvRecord {
    int line = 0;
    QStringList fields;
};

// Reads RFC 4180 text record by record: fields separated by commas, quoted
// fields may hold commas, doubled quotes and line breaks; CRLF and LF both end
// a record; empty lines are skipped. An unterminated quote is an error, and
// so is whatever `visit` returns; a file of a million lines is never held as
// records all at once.
Status forEachCsvRecord(QStringView text, const std::function<Status(const CsvRecord &)> &visit);

} // namespace keel
