#pragma once

#include "core/Result.h"
#include "core/statement/StatementLine.h"

#include <QList>
#include <QStringView>

namespace keel {

class CurrencyTable;

// The readers behind readStatement(), one per format, on decoded text.
Result<QList<StatementLine>> readKeelCsv(QStringView text, const CurrencyTable &currencies);
Result<QList<StatementLine>> readWechatPayBill(QStringView text, const CurrencyTable &currencies);

} // namespace keel
