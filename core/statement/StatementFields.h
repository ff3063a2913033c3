#pragma once

#include "core/Result.h"
#include "core/statement/StatementLine.h"

#include <QByteArray>
#include <QDateTime>
#include <QHash>
#include <QStringList>

#include <functional>

class QTimeZone;

namespace keel {

struct Currency;
struct CsvRecord;

// What every statement reader needs to read a field the same way. Errors are
// coded with a StatementCheck and say where.
namespace statementFields {

Error refusal(const char *check, QString message);

// Strict UTF-8 (a leading BOM is dropped).
Result<QString> decodeUtf8(const QByteArray &bytes);
// Strict GBK, as Alipay writes its bills: the text must encode back to the
// very same bytes, so no byte was skipped or replaced.
Result<QString> decodeGbk(const QByteArray &bytes, const QString &what);

// Column positions by header name.
class Columns final {
public:
    // Fails naming the first of `required` the header lacks.
    static Result<Columns> fromHeader(const QStringList &header, const QStringList &required);
    QString value(const QStringList &fields, const QString &name) const;

private:
    QHash<QString, int> m_index;
};

enum class Amount {
    Movement, // one payment's or refund's amount: >= 0, at most the currency's maximum
    Signed,   // a fee: may carry a leading '-', at most the maximum
    Total,    // a file's total: >= 0, any size
};

// Where a field is in the file ("line 12 amount"), said only when the field
// is wrong: a statement is a million lines, almost all of them right.
using Place = std::function<QString()>;

// An amount in major units as the currency writes it; the result in minor
// units.
Result<qint64> majorUnits(const QString &text, const Currency &currency, const Place &where,
                          Amount kind);
Result<qint64> majorUnits(const QString &text, const Currency &currency, const QString &where,
                          Amount kind);

// A CSV whose first record is a header naming at least `required`: `row`
// reads each later record (as wide as the header) into a line. The first
// refusal stops it; a file without a header is a layout refusal.
class Columns;
using RowReader = std::function<Result<StatementLine>(const CsvRecord &, const Columns &)>;
Result<qsizetype> readHeaderedCsv(QStringView text, const QStringList &required,
                                  const RowReader &row, const LineSink &sink);

// A record as wide as its header, or a layout refusal naming its line.
Status sameWidth(const CsvRecord &record, qsizetype headerWidth);

// sum += amount, or a totals refusal naming `what` when it overflows.
Status addChecked(qint64 &sum, qint64 amount, const QString &what);

// "yyyy-MM-dd HH:mm:ss" in `zone`, as UTC.
Result<QDateTime> localTime(const QString &text, const QTimeZone &zone, const QString &where);

} // namespace statementFields
} // namespace keel
