#pragma once

#include "core/Result.h"
#include "core/statement/StatementLine.h"

#include <QByteArray>
#include <QList>
#include <QStringView>

namespace keel {

class CurrencyTable;

// The readers behind readStatement(), one per format, on decoded text.
Result<QList<StatementLine>> readKeelCsv(QStringView text, const CurrencyTable &currencies);
Result<QList<StatementLine>> readWechatPayBill(QStringView text, const CurrencyTable &currencies);
Result<QList<StatementLine>> readStripePayoutReport(QStringView text,
                                                    const CurrencyTable &currencies);
// Alipay's comes as a ZIP of GBK files: the reader takes the archive's bytes.
Result<QList<StatementLine>> readAlipayBill(const QByteArray &archive,
                                            const CurrencyTable &currencies);

} // namespace keel
