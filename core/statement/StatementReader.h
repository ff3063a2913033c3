#pragma once

#include "core/Result.h"
#include "core/statement/StatementLine.h"

#include <QByteArray>
#include <QList>

namespace keel {

class CurrencyTable;

// A statement file as the channel delivered it.
struct StatementFile {
    StatementFormat format = StatementFormat::Csv;
    QByteArray bytes;
    QString sha1; // hex SHA1 of the bill (inflated) the channel's API returned; empty: none
};

// Error codes of a refused statement, one per integrity check.
namespace StatementCheck {
inline constexpr char Digest[] = "statement_digest";     // the SHA1 does not match
inline constexpr char Encoding[] = "statement_encoding"; // bytes do not decode
inline constexpr char Layout[] = "statement_layout";     // columns, sections, prefixes
inline constexpr char Field[] = "statement_field";       // a value does not parse
inline constexpr char Totals[] = "statement_totals";     // detail and summary disagree
inline constexpr char Unsupported[] = "statement_unsupported";
} // namespace StatementCheck

// Reads every line of a statement into `sink` as it goes, and returns how
// many there were, or refuses the file: the error names the check that
// failed and where, and its code is one of StatementCheck. A refusal may
// come after lines were handed over (the totals are checked at the end):
// the sink's owner then drops them all.
Result<qsizetype> readStatement(const StatementFile &file, const CurrencyTable &currencies,
                                const LineSink &sink);

// Only the SHA1 the channel's API gave (none: nothing to check): for a file
// already imported, whose lines are not read again.
Status checkStatementDigest(const StatementFile &file);

// Every line of a statement at once, or the refusal.
Result<QList<StatementLine>> readStatement(const StatementFile &file,
                                           const CurrencyTable &currencies);

} // namespace keel
