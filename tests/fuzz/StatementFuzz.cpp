// Statement files as channels deliver them — keel's CSV, WeChat Pay's bill
// (plain or gzipped), Alipay's ZIP of GBK files, Stripe's report — are
// untrusted bytes read by keel's own CSV, gzip and ZIP code. The first byte
// picks the format. Whatever the bytes, a read ends in lines that hold what
// a statement line must, or in a refusal naming one of the checks, and the
// same bytes always read the same way.
#include "FuzzInput.h"

#include "core/money/Currency.h"
#include "core/statement/StatementReader.h"

using namespace keel;

namespace {

const CurrencyTable &currencies()
{
    static const CurrencyTable table({{QStringLiteral("CNY"), 2, 99999999},
                                      {QStringLiteral("USD"), 2, 99999999},
                                      {QStringLiteral("JPY"), 0, 9999999}});
    return table;
}

bool namesACheck(const QString &code)
{
    for (const char *check :
         {StatementCheck::Digest, StatementCheck::Encoding, StatementCheck::Layout,
          StatementCheck::Field, StatementCheck::Totals, StatementCheck::Unsupported})
        if (code == QLatin1String(check))
            return true;
    return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    constexpr StatementFormat Formats[] = {StatementFormat::Alipay, StatementFormat::WechatPay,
                                           StatementFormat::Stripe, StatementFormat::Csv};
    const StatementFile file{Formats[data[0] % 4], fuzz::bytes(data + 1, size - 1), {}};

    const Result<QList<StatementLine>> lines = readStatement(file, currencies());
    const Result<QList<StatementLine>> again = readStatement(file, currencies());
    fuzz::require(lines.ok() == again.ok(), "the same bytes read the same way");
    if (!lines.ok()) {
        fuzz::require(namesACheck(lines.error().code), "a refusal names one of the checks");
        fuzz::require(again.error().code == lines.error().code, "the same check refuses again");
        return 0;
    }
    fuzz::require(again->size() == lines->size(), "the same lines every time");
    for (const StatementLine &line : *lines) {
        const std::optional<Currency> currency = currencies().find(line.currency);
        fuzz::require(currency.has_value(), "a line is in a currency keel knows");
        fuzz::require(line.amount > 0 && line.amount <= currency->maxAmount,
                      "a line moves at most what one payment may");
        fuzz::require(!line.reference.isEmpty() && !line.channelReference.isEmpty(),
                      "a line names keel's record and the channel's");
        fuzz::require(line.occurredAt.isValid() && line.occurredAt.offsetFromUtc() == 0,
                      "a line's time is a valid instant in UTC");
        fuzz::require(!line.reference.contains(QChar(0)) &&
                          !line.channelReference.contains(QChar(0)),
                      "no NUL reaches the database");
    }
    return 0;
}
