#pragma once

#include "core/Result.h"
#include "core/statement/StatementLine.h"

#include <QByteArray>
#include <QList>
#include <QStringView>

namespace keel {

class CurrencyTable;

// The readers behind readStatement(), one per format, on decoded text. Each
// hands its lines to `sink` as it reads them and returns how many there were
// once the file's own totals have been checked.
Result<qsizetype> readKeelCsv(QStringView text, const CurrencyTable &currencies,
                              const LineSink &sink);
Result<qsizetype> readWechatPayBill(QStringView text, const CurrencyTable &currencies,
                                    const LineSink &sink);
Result<qsizetype> readStripePayoutReport(QStringView text, const CurrencyTable &currencies,
                                         const LineSink &sink);
// Alipay's comes as a ZIP of GBK files: the reader takes the archive's bytes.
Result<qsizetype> readAlipayBill(const QByteArray &archive, const CurrencyTable &currencies,
                                 const LineSink &sink);

} // namespace keel
