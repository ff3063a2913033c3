#include "core/statement/StatementReader.h"
#include "core/money/Currency.h"

#include <gtest/gtest.h>

#include <QCryptographicHash>
#include <QFile>

#include <zlib.h>

using namespace keel;

namespace {

CurrencyTable currencies()
{
    return CurrencyTable({{QStringLiteral("USD"), 2, 99999999},
                          {QStringLiteral("CNY"), 2, 99999999},
                          {QStringLiteral("JPY"), 0, 99999999}});
}

QByteArray sample(const char *name)
{
    QFile file(QStringLiteral(KEEL_SOURCE_DIR "/tests/data/recon/") + QString::fromLatin1(name));
    EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << name;
    return file.readAll();
}

Result<QList<StatementLine>> read(StatementFormat format, const QByteArray &bytes,
                                  const QString &sha1 = {})
{
    return readStatement({format, bytes, sha1}, currencies());
}

// The check a refused statement names, or "accepted".
QString refusedFor(StatementFormat format, const QByteArray &bytes, const QString &sha1 = {})
{
    Result<QList<StatementLine>> lines = read(format, bytes, sha1);
    return lines ? QStringLiteral("accepted") : lines.error().code;
}

QByteArray gzipped(const QByteArray &bytes)
{
    z_stream stream{};
    EXPECT_EQ(deflateInit2(&stream, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    QByteArray out(int(deflateBound(&stream, uLong(bytes.size())) + 32), '\0');
    stream.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(bytes.constData()));
    stream.avail_in = uInt(bytes.size());
    stream.next_out = reinterpret_cast<Bytef *>(out.data());
    stream.avail_out = uInt(out.size());
    EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
    out.resize(qsizetype(stream.total_out));
    deflateEnd(&stream);
    return out;
}

QDateTime utc(const char *iso)
{
    return QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs).toUTC();
}

} // namespace

TEST(KeelCsvStatementTest, ReadsEveryColumnInItsCurrencyAndZone)
{
    Result<QList<StatementLine>> lines = read(StatementFormat::Csv, sample("keel-statement.csv"));
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    ASSERT_EQ(lines->size(), 4);
    const StatementLine &first = lines->at(0);
    EXPECT_EQ(first.kind, LineKind::Payment);
    EXPECT_EQ(first.reference, QStringLiteral("ch_csvA0000001"));
    EXPECT_EQ(first.channelReference, QStringLiteral("SIM-0001"));
    EXPECT_EQ(first.amount, 1999);
    EXPECT_EQ(first.fee, 58);
    EXPECT_EQ(first.occurredAt, utc("2026-12-01T08:00:00Z"));
    EXPECT_EQ(lines->at(1).amount, 500) << "JPY has no minor unit";
    EXPECT_EQ(lines->at(1).occurredAt, utc("2026-12-01T00:30:00Z")) << "the offset is applied";
    EXPECT_EQ(lines->at(2).kind, LineKind::Refund);
    EXPECT_EQ(lines->at(2).fee, -15) << "a refund gives its fee back";
    EXPECT_EQ(lines->at(2).paymentReference, QStringLiteral("ch_csvA0000001"))
        << "the optional payment_reference names the charge it refunds";
    EXPECT_TRUE(lines->at(0).paymentReference.isEmpty());
    EXPECT_EQ(lines->at(3).channelReference, QStringLiteral("SIM-0003, with a comma"));
}

// A reversal gives a payment back: a payment line of the same references.
TEST(KeelCsvStatementTest, AReversalIsAPaymentLineThatGivesThePaymentBack)
{
    Result<QList<StatementLine>> lines =
        read(StatementFormat::Csv,
             "reference,channel_reference,type,amount,currency,fee,occurred_at\n"
             "ch_csvR0000001,SIM-0009,payment,7.00,USD,0.21,2026-12-01T08:00:00Z\n"
             "ch_csvR0000001,SIM-0009,reversal,7.00,USD,-0.21,2026-12-01T08:01:00Z\n");
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    ASSERT_EQ(lines->size(), 2);
    EXPECT_FALSE(lines->at(0).reverses);
    EXPECT_EQ(lines->at(1).kind, LineKind::Payment);
    EXPECT_TRUE(lines->at(1).reverses);
    EXPECT_EQ(lines->at(1).reference, lines->at(0).reference);
    EXPECT_EQ(lines->at(1).amount, 700);
    EXPECT_EQ(lines->at(1).fee, -21);
}

TEST(KeelCsvStatementTest, EachBrokenFieldRefusesTheWholeFileNamingTheCheck)
{
    const QByteArray header = "reference,channel_reference,type,amount,currency,fee,occurred_at\n";
    const auto withLine = [&](const char *line) {
        QByteArray file = header;
        file.append(line).append('\n');
        return file;
    };
    const QList<std::pair<QByteArray, const char *>> cases{
        {withLine("ch_a1234567,X,payment,1.999,USD,0,2026-12-01T00:00:00Z"), "statement_field"},
        {withLine("ch_a1234567,X,payment,1.00,XXX,0,2026-12-01T00:00:00Z"), "statement_field"},
        {withLine("ch_a1234567,X,charge,1.00,USD,0,2026-12-01T00:00:00Z"), "statement_field"},
        {withLine("ch_a1234567,X,payment,0.00,USD,0,2026-12-01T00:00:00Z"), "statement_field"},
        {withLine("ch_a1234567,X,payment,-1.00,USD,0,2026-12-01T00:00:00Z"), "statement_field"},
        {withLine("ch_a1234567,X,payment,1.00,USD,0,2026-12-01T00:00:00"), "statement_field"},
        {withLine(",,payment,1.00,USD,0,2026-12-01T00:00:00Z"), "statement_field"},
        {withLine("ch_a1234567,,payment,1.00,USD,0,2026-12-01T00:00:00Z"), "statement_field"},
        {withLine(",X,payment,1.00,USD,0,2026-12-01T00:00:00Z"), "statement_field"},
        {withLine("ch_a1234567,X,payment,1000000.00,USD,0,2026-12-01T00:00:00Z"),
         "statement_field"},
        {withLine("ch_a1234567,X,payment,1.00,USD,0"), "statement_layout"},
        {withLine("\"ch_a1234567,X,payment,1.00,USD,0,2026-12-01T00:00:00Z"), "statement_layout"},
        {"reference,type,amount\nch_a1234567,payment,1.00\n", "statement_layout"},
        {withLine("ch_a1234567,X,payment,1.00,USD,0,2026-12-01T00:00:00Z\xff\xfe"),
         "statement_encoding"},
        {"reference,channel_reference,type,amount,currency,fee,occurred_at,payment_reference\n"
         "ch_a1234567,X,payment,1.00,USD,0,2026-12-01T00:00:00Z,ch_b1234567\n",
         "statement_field"},
    };
    for (const auto &[bytes, check] : cases)
        EXPECT_EQ(refusedFor(StatementFormat::Csv, bytes), QLatin1String(check))
            << bytes.constData();
    QByteArray withNul = withLine("ch_a1234567,X#,payment,1.00,USD,0,2026-12-01T00:00:00Z");
    withNul.replace('#', '\0');
    EXPECT_EQ(refusedFor(StatementFormat::Csv, withNul), QLatin1String("statement_encoding"));
}

TEST(WechatPayBillTest, ReadsPaymentsAndRefundsByHeaderNameInBeijingTime)
{
    Result<QList<StatementLine>> lines =
        read(StatementFormat::WechatPay, sample("wechatpay-tradebill-all.csv"));
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    ASSERT_EQ(lines->size(), 4);
    EXPECT_EQ(lines->at(0).reference, QStringLiteral("ch_wxA0000001"));
    EXPECT_EQ(lines->at(0).channelReference, QStringLiteral("4200001234202612010000000001"));
    EXPECT_EQ(lines->at(0).amount, 10000);
    EXPECT_EQ(lines->at(0).currency, QStringLiteral("CNY"));
    EXPECT_EQ(lines->at(0).occurredAt, utc("2026-11-30T16:00:05Z")) << "Beijing is UTC+8";
    const StatementLine &refund = lines->at(2);
    EXPECT_EQ(refund.kind, LineKind::Refund);
    EXPECT_EQ(refund.reference, QStringLiteral("re_wxA0000001"));
    EXPECT_EQ(refund.channelReference, QStringLiteral("50300001234202612010000000001"));
    EXPECT_EQ(refund.paymentReference, QStringLiteral("ch_wxA0000001")) << "its order's 商户订单号";
    EXPECT_EQ(refund.amount, 3000);
    EXPECT_EQ(refund.fee, -18);
    EXPECT_TRUE(lines->at(0).paymentReference.isEmpty());
}

// A refund partly paid by a coupon WeChat Pay funded: 退款金额 is what went
// back in cash, and the refund keel asked for is 申请退款金额.
TEST(WechatPayBillTest, ARefundIsReadForWhatKeelAskedNotTheCashPartAlone)
{
    QByteArray bill = sample("wechatpay-tradebill-all.csv");
    const QByteArray cash = "`re_wxA0000001,`30.00,`0.00,`ORIGINAL";
    ASSERT_TRUE(bill.contains(cash));
    bill.replace(cash, "`re_wxA0000001,`26.00,`0.00,`ORIGINAL");
    bill.replace("`4,`134.38,`30.00,", "`4,`134.38,`26.00,");
    Result<QList<StatementLine>> lines = read(StatementFormat::WechatPay, bill);
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    EXPECT_EQ(lines->at(2).amount, 3000) << "申请退款金额, the refund keel asked for";
    QByteArray unasked = bill;
    unasked.replace("`0.00,`30.00,`\r\n", "`0.00,`0.00,`\r\n");
    unasked.replace("`0.62,`134.38,`30.00", "`0.62,`134.38,`0.00");
    ASSERT_NE(unasked, bill);
    lines = read(StatementFormat::WechatPay, unasked);
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    EXPECT_EQ(lines->at(2).amount, 2600)
        << "without 申请退款金额, 退款金额 with any 充值券退款金额";
}

TEST(WechatPayBillTest, TheSha1IsCheckedBeforeAnythingIsRead)
{
    const QByteArray bill = sample("wechatpay-tradebill-all.csv");
    const QString sha1 =
        QString::fromLatin1(QCryptographicHash::hash(bill, QCryptographicHash::Sha1).toHex());
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, bill, sha1), QLatin1String("accepted"));
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, bill, sha1.toUpper()),
              QLatin1String("accepted"));
    QString wrong = sha1;
    wrong[0] = wrong[0] == u'0' ? u'1' : u'0';
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, bill, wrong),
              QLatin1String("statement_digest"));
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, QByteArray("not a bill"), wrong),
              QLatin1String("statement_digest"))
        << "a wrong digest is reported before the content is judged";
}

TEST(WechatPayBillTest, TheSha1OfAGzippedBillIsOfTheBillItself)
{
    const QByteArray bill = sample("wechatpay-tradebill-all.csv");
    const QByteArray packed = gzipped(bill);
    const auto sha1 = [](const QByteArray &bytes) {
        return QString::fromLatin1(
            QCryptographicHash::hash(bytes, QCryptographicHash::Sha1).toHex());
    };
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, packed, sha1(bill)),
              QLatin1String("accepted"));
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, packed, sha1(packed)),
              QLatin1String("statement_digest"));
}

TEST(WechatPayBillTest, GzipMembersAreReadInTurnAndBytesAfterTheStreamRefused)
{
    const QByteArray bill = sample("wechatpay-tradebill-all.csv");
    const qsizetype cut = bill.indexOf("`2026-12-01 18:45:10");
    const QByteArray twoMembers = gzipped(bill.left(cut)) + gzipped(bill.mid(cut));
    Result<QList<StatementLine>> lines = read(StatementFormat::WechatPay, twoMembers);
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    EXPECT_EQ(lines->size(), 4);
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, gzipped(bill) + "trailing bytes"),
              QLatin1String("statement_encoding"));
}

TEST(WechatPayBillTest, AGzipStreamIsReadAndATruncatedOneRefused)
{
    const QByteArray bill = sample("wechatpay-tradebill-all.csv");
    const QByteArray packed = gzipped(bill);
    Result<QList<StatementLine>> lines = read(StatementFormat::WechatPay, packed);
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    EXPECT_EQ(lines->size(), 4);
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, packed.left(packed.size() - 9)),
              QLatin1String("statement_encoding"));
}

TEST(WechatPayBillTest, TotalsThatDoNotTieAndBrokenLayoutsAreRefusedWhole)
{
    const QByteArray bill = sample("wechatpay-tradebill-all.csv");
    const auto replaced = [&](const char *from, const char *to) {
        QByteArray changed = bill;
        EXPECT_TRUE(changed.contains(from)) << from;
        return changed.replace(from, to);
    };
    // A detail amount changed without its summary.
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, replaced("`25.50,", "`25.51,")),
              QLatin1String("statement_totals"));
    // The count, the refunds and the fees of the summary row, each on its own.
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, replaced("`4,`134.38", "`5,`134.38")),
              QLatin1String("statement_totals"));
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, replaced("`134.38,`30.00", "`134.38,`30.01")),
              QLatin1String("statement_totals"));
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, replaced("`0.62,", "`0.80,")),
              QLatin1String("statement_totals"));
    // A field without its backtick, a missing column, a cut-off file.
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, replaced(",`JSAPI,`REFUND", ",JSAPI,`REFUND")),
              QLatin1String("statement_layout"));
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, replaced("商户退款单号", "退款单号")),
              QLatin1String("statement_layout"));
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, bill.left(bill.indexOf("总交易单数"))),
              QLatin1String("statement_layout"));
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, replaced("`REFUND", "`CLOSED")),
              QLatin1String("statement_field"));
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, replaced(",`0.62,`134.38", ",`0.62,`134.39")),
              QLatin1String("statement_totals"))
        << "the orders' total ties too";
    EXPECT_EQ(
        refusedFor(StatementFormat::WechatPay, replaced("`4200001234202612010000000002", "`")),
        QLatin1String("statement_field"))
        << "a payment without WeChat Pay's own number";
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, replaced("`CNY", "`XXX")),
              QLatin1String("statement_field"));
}

// A paid order the merchant reversed: its SUCCESS row, then a REVOKED row
// that gives the money back under the order's own numbers.
TEST(WechatPayBillTest, ARevokedRowIsAReversalOfItsOrdersPayment)
{
    const QByteArray bill = sample("wechatpay-tradebill-revoked.csv");
    Result<QList<StatementLine>> lines = read(StatementFormat::WechatPay, bill);
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    ASSERT_EQ(lines->size(), 3);
    const StatementLine &paid = lines->at(0);
    const StatementLine &reversal = lines->at(1);
    EXPECT_FALSE(paid.reverses);
    EXPECT_EQ(reversal.kind, LineKind::Payment);
    EXPECT_TRUE(reversal.reverses);
    EXPECT_EQ(reversal.reference, paid.reference) << "the order's number, not a refund's";
    EXPECT_EQ(reversal.channelReference, paid.channelReference);
    EXPECT_EQ(reversal.amount, 5000);
    EXPECT_EQ(reversal.fee, -30);
    EXPECT_EQ(reversal.occurredAt, utc("2026-12-01T01:00:40Z"));
    EXPECT_FALSE(lines->at(2).reverses);

    // A coupon WeChat Pay funded: 退款金额 is what the payer's account got
    // back, the reversal is of the whole order as keel charged it.
    QByteArray coupon = bill;
    coupon.replace("`ch_wxR0000001,`50.00,`0.00,`ORIGINAL", "`ch_wxR0000001,`45.00,`5.00,`ORIGINAL")
        .replace("`62.00,`50.00,`0.00,`0.07,", "`62.00,`45.00,`0.00,`0.07,");
    lines = read(StatementFormat::WechatPay, coupon);
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    EXPECT_EQ(lines->at(1).amount, 5000);

    // Laid out as its order's row (the amount under 订单金额), it reads the same.
    QByteArray asOrder = bill;
    asOrder
        .replace("`0.00,`0.00,`50300001234202612010000000011,`ch_wxR0000001,`50.00,",
                 "`0.00,`0.00,`,`,`0.00,")
        .replace("`-0.30,`0.60%,`0.00,`50.00,", "`-0.30,`0.60%,`50.00,`50.00,")
        .replace("`62.00,`50.00,`0.00,`0.07,`62.00,", "`62.00,`0.00,`0.00,`0.07,`112.00,");
    lines = read(StatementFormat::WechatPay, asOrder);
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    EXPECT_TRUE(lines->at(1).reverses);
    EXPECT_EQ(lines->at(1).amount, 5000);

    // A reversal of nothing, or of no order WeChat Pay names, is refused.
    QByteArray empty = asOrder;
    empty.replace("`-0.30,`0.60%,`50.00,`50.00,", "`-0.30,`0.60%,`0.00,`0.00,")
        .replace("`0.07,`112.00,", "`0.07,`62.00,");
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, empty), QLatin1String("statement_field"));
    QByteArray nameless = bill;
    nameless.replace("09:00:40,`wx2421b1c4370ec43b,`10000100,`,`,`4200001234202612010000000011",
                     "09:00:40,`wx2421b1c4370ec43b,`10000100,`,`,`");
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, nameless), QLatin1String("statement_field"));
}

TEST(StripePayoutReportTest, ReadsChargesAndRefundsByCategoryWithKeelsReferenceFromMetadata)
{
    Result<QList<StatementLine>> lines =
        read(StatementFormat::Stripe, sample("stripe-payout-reconciliation.csv"));
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    ASSERT_EQ(lines->size(), 3);
    EXPECT_EQ(lines->at(0).kind, LineKind::Payment);
    EXPECT_EQ(lines->at(0).reference, QStringLiteral("ch_keelStripe00001"));
    EXPECT_EQ(lines->at(0).channelReference, QStringLiteral("ch_3KeelSample0001"));
    EXPECT_EQ(lines->at(0).amount, 2500);
    EXPECT_EQ(lines->at(0).fee, 103);
    EXPECT_EQ(lines->at(0).currency, QStringLiteral("USD")) << "Stripe writes it lower case";
    EXPECT_EQ(lines->at(0).occurredAt, utc("2026-12-01T09:15:02Z"));
    EXPECT_EQ(lines->at(1).amount, 5000) << "yen have no minor unit";
    EXPECT_EQ(lines->at(1).occurredAt, utc("2026-12-01T23:59:59Z"));
    const StatementLine &refund = lines->at(2);
    EXPECT_EQ(refund.kind, LineKind::Refund);
    EXPECT_EQ(refund.reference, QStringLiteral("re_keelStripe00001"));
    EXPECT_EQ(refund.channelReference, QStringLiteral("re_3KeelSample0003"));
    EXPECT_EQ(refund.amount, 1000) << "the report writes a refund's gross negative";
    EXPECT_EQ(refund.fee, 0);
    EXPECT_EQ(refund.paymentReference, QStringLiteral("ch_keelStripe00001"))
        << "a refund's payment_metadata is its charge's";
}

// A refund row without the charge's metadata names it by Stripe's charge_id.
TEST(StripePayoutReportTest, ARefundNamesItsChargeByStripesIdWithoutKeelsMetadata)
{
    QByteArray bytes;
    for (const QByteArray &row : sample("stripe-payout-reconciliation.csv").split('\n'))
        if (!row.isEmpty())
            bytes += row + (bytes.isEmpty() ? ",charge_id\n" : ",\n");
    bytes.replace(",ch_keelStripe00001,re_keelStripe00001,", ",,re_keelStripe00001,ch_3X");
    Result<QList<StatementLine>> lines = read(StatementFormat::Stripe, bytes);
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    ASSERT_EQ(lines->size(), 3);
    EXPECT_EQ(lines->at(2).paymentReference, QStringLiteral("ch_3X"));
}

TEST(StripePayoutReportTest, AChargeNotMadeThroughKeelIsReadUnderStripesId)
{
    QByteArray bytes = sample("stripe-payout-reconciliation.csv");
    bytes.replace(",ch_keelStripe00002,", ",,");
    Result<QList<StatementLine>> lines = read(StatementFormat::Stripe, bytes);
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    EXPECT_EQ(lines->at(1).reference, QStringLiteral("ch_3KeelSample0002"))
        << "keel knows no such charge: a missing_at_keel, not a refused report";
}

TEST(StripePayoutReportTest, WhatDoesNotAddUpOrIsNotAPaymentIsRefusedWhole)
{
    const QByteArray good = sample("stripe-payout-reconciliation.csv");
    const auto replaced = [&](const char *from, const char *to) {
        QByteArray bytes = good;
        EXPECT_TRUE(bytes.contains(from)) << from;
        return bytes.replace(from, to);
    };
    EXPECT_EQ(refusedFor(StatementFormat::Stripe, replaced("1.03,23.97", "1.03,24.00")),
              QLatin1String("statement_totals"))
        << "net is gross less fee";
    EXPECT_EQ(refusedFor(StatementFormat::Stripe, replaced(",charge,ch_3KeelSample0002",
                                                           ",other_adjustment,ch_3KeelSample0002")),
              QLatin1String("statement_unsupported"))
        << "an adjustment moves money keel does not match yet: not dropped silently";
    EXPECT_EQ(refusedFor(StatementFormat::Stripe,
                         replaced(",charge,ch_3KeelSample0002", ",dispute,ch_3KeelSample0002")),
              QLatin1String("statement_field"))
        << "a dispute takes money out: a positive one is no dispute";
    EXPECT_EQ(refusedFor(StatementFormat::Stripe,
                         replaced("usd,-10.00,0.00,-10.00", "usd,10.00,0.00,10.00")),
              QLatin1String("statement_field"))
        << "a refund takes money out";
    EXPECT_EQ(refusedFor(StatementFormat::Stripe,
                         replaced("4820,charge,ch_3KeelSample0002", "4820,charge,")),
              QLatin1String("statement_field"))
        << "a charge without Stripe's id";
    EXPECT_EQ(
        refusedFor(StatementFormat::Stripe, replaced("5000,jpy,ch_keel", "45.00,usd,ch_keel")),
        QLatin1String("statement_unsupported"))
        << "paid in dollars, settled in yen";
    EXPECT_EQ(
        refusedFor(StatementFormat::Stripe, replaced("25.00,1.03,23.97", "25.00,-1.03,26.03")),
        QLatin1String("statement_field"))
        << "a charge's fee is what Stripe kept";
    EXPECT_EQ(refusedFor(StatementFormat::Stripe, replaced("2026-12-01 14:00:00,2026-12-01 14",
                                                           "2026-12-01T14:00:00,2026-12-01 14")),
              QLatin1String("statement_field"));
    EXPECT_EQ(
        refusedFor(StatementFormat::Stripe, replaced("25.00,1.03,23.97", "25.001,1.03,23.97")),
        QLatin1String("statement_field"));
    EXPECT_EQ(refusedFor(StatementFormat::Stripe,
                         replaced(",payment_metadata[keel_reference]", ",payment_metadata[order]")),
              QLatin1String("statement_layout"))
        << "the report must be run with keel's reference in the metadata";
}

// A dispute takes a charge's money back and its reversal gives it again,
// each under the dispute's id; a refund failure gives a refund back. Each is
// a line of the charge or refund it is of, so that their run nets them.
TEST(StripePayoutReportTest, DisputesTheirReversalsAndFailedRefundsAreLinesOfTheirRecords)
{
    Result<QList<StatementLine>> lines =
        read(StatementFormat::Stripe, sample("stripe-payout-disputes.csv"));
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    ASSERT_EQ(lines->size(), 4);
    const StatementLine &dispute = lines->at(0);
    EXPECT_EQ(dispute.kind, LineKind::Payment);
    EXPECT_TRUE(dispute.reverses);
    EXPECT_EQ(dispute.reference, QStringLiteral("ch_keelStripe00003"));
    EXPECT_EQ(dispute.channelReference, QStringLiteral("dp_1KeelSample0011"));
    EXPECT_EQ(dispute.amount, 4000) << "what it took back, written negative";
    EXPECT_EQ(dispute.fee, 1500) << "Stripe's dispute fee is Stripe's";
    const StatementLine &reinstated = lines->at(1);
    EXPECT_EQ(reinstated.kind, LineKind::Payment);
    EXPECT_TRUE(reinstated.reverses);
    EXPECT_EQ(reinstated.reference, dispute.reference);
    EXPECT_EQ(reinstated.channelReference, dispute.channelReference);
    EXPECT_EQ(reinstated.amount, -4000) << "what the dispute took, given again";
    EXPECT_EQ(reinstated.fee, -1500);
    const StatementLine &failed = lines->at(2);
    EXPECT_EQ(failed.kind, LineKind::Refund);
    EXPECT_TRUE(failed.reverses);
    EXPECT_EQ(failed.reference, QStringLiteral("re_keelStripe00001"));
    EXPECT_EQ(failed.channelReference, QStringLiteral("re_3KeelSample0003"));
    EXPECT_EQ(failed.amount, 1000);
    const StatementLine &radar = lines->at(3);
    EXPECT_EQ(radar.kind, LineKind::ChannelFee) << "Stripe's own fee, of nothing of keel's";
    EXPECT_EQ(radar.reference, QStringLiteral("txn_1KeelSample0014")) << "it has no source";
    EXPECT_EQ(radar.channelReference, QStringLiteral("txn_1KeelSample0014"));
    EXPECT_EQ(radar.fee, 235) << "what Stripe kept, booked with the statement's fees";
    EXPECT_EQ(radar.amount, 235);

    QByteArray bare = sample("stripe-payout-disputes.csv");
    bare.replace(",ch_3KeelSample0004,ch_keelStripe00003,", ",ch_3KeelSample0004,,");
    Result<QList<StatementLine>> unnamed = read(StatementFormat::Stripe, bare);
    ASSERT_TRUE(unnamed) << qPrintable(unnamed.error().message);
    EXPECT_EQ(unnamed->at(0).reference, QStringLiteral("ch_3KeelSample0004"))
        << "without keel's reference, a dispute is its charge's by Stripe's id";
    bare.replace(",ch_3KeelSample0004,,", ",,,");
    EXPECT_EQ(refusedFor(StatementFormat::Stripe, bare), QLatin1String("statement_field"))
        << "a dispute that names no charge";
    QByteArray outward = sample("stripe-payout-disputes.csv");
    outward.replace("usd,10.00,0.00,10.00,refund_failure", "usd,-10.00,0.00,-10.00,refund_failure");
    EXPECT_EQ(refusedFor(StatementFormat::Stripe, outward), QLatin1String("statement_field"))
        << "a failed refund brings the money back";
    QByteArray idle = sample("stripe-payout-disputes.csv");
    idle.replace("usd,-2.35,0.00,-2.35,fee", "usd,0.00,0.00,0.00,fee");
    EXPECT_EQ(refusedFor(StatementFormat::Stripe, idle), QLatin1String("statement_field"))
        << "a fee of nothing";
    QByteArray partial = sample("stripe-payout-disputes.csv");
    partial.replace(",refund_failure,", ",partial_capture_reversal,");
    EXPECT_EQ(refusedFor(StatementFormat::Stripe, partial), QLatin1String("statement_unsupported"))
        << "keel captures whole charges";
}

// A charge failure is the charge's money taken back, filed under Stripe's
// object of the failure; without keel's reference it is the charge's by
// charge_id, else by that object. A network cost is a fee of Stripe's, as
// its Radar fee is.
TEST(StripePayoutReportTest, AFailedChargeIsAReversalOfItAndANetworkCostAFee)
{
    QByteArray bytes = sample("stripe-payout-disputes.csv");
    bytes.replace(",dispute,dp_1KeelSample0011,", ",charge_failure,py_1KeelSample0011,");
    bytes.replace(",fee,,Radar", ",network_cost,,Network costs");
    Result<QList<StatementLine>> lines = read(StatementFormat::Stripe, bytes);
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    ASSERT_EQ(lines->size(), 4);
    const StatementLine &failed = lines->at(0);
    EXPECT_EQ(failed.kind, LineKind::Payment);
    EXPECT_TRUE(failed.reverses);
    EXPECT_EQ(failed.reference, QStringLiteral("ch_keelStripe00003"));
    EXPECT_EQ(failed.channelReference, QStringLiteral("py_1KeelSample0011"));
    EXPECT_EQ(failed.amount, 4000) << "what the returned debit took back";
    EXPECT_EQ(lines->at(3).kind, LineKind::ChannelFee);
    EXPECT_EQ(lines->at(3).fee, 235);

    QByteArray inward = bytes;
    inward.replace("usd,-40.00,15.00,-55.00,charge_failure",
                   "usd,40.00,15.00,25.00,charge_failure");
    EXPECT_EQ(refusedFor(StatementFormat::Stripe, inward), QLatin1String("statement_field"))
        << "a failed charge takes money, never brings it";
    QByteArray unnamed = bytes;
    unnamed.replace("-40.00,usd,ch_3KeelSample0004,ch_keelStripe00003,",
                    "-40.00,usd,ch_3KeelSample0004,,");
    Result<QList<StatementLine>> bare = read(StatementFormat::Stripe, unnamed);
    ASSERT_TRUE(bare) << qPrintable(bare.error().message);
    EXPECT_EQ(bare->at(0).reference, QStringLiteral("ch_3KeelSample0004"))
        << "without keel's reference, the charge's by charge_id";
    unnamed.replace("-40.00,usd,ch_3KeelSample0004,,", "-40.00,usd,,,");
    bare = read(StatementFormat::Stripe, unnamed);
    ASSERT_TRUE(bare) << qPrintable(bare.error().message);
    EXPECT_EQ(bare->at(0).reference, QStringLiteral("py_1KeelSample0011"))
        << "naming no charge, under Stripe's object of the failure";
}

TEST(AlipayBillTest, ReadsTradesAndRefundsFromItsZipOfGbkFiles)
{
    Result<QList<StatementLine>> lines =
        read(StatementFormat::Alipay, sample("alipay-tradebill.zip"));
    ASSERT_TRUE(lines) << qPrintable(lines.error().message);
    ASSERT_EQ(lines->size(), 3);
    const StatementLine &sale = lines->at(0);
    EXPECT_EQ(sale.kind, LineKind::Payment);
    EXPECT_EQ(sale.reference, QStringLiteral("ch_alA0000001")) << "padding tabs are dropped";
    EXPECT_EQ(sale.channelReference, QStringLiteral("2026120122001400001000000001"));
    EXPECT_EQ(sale.amount, 10000);
    EXPECT_EQ(sale.currency, QStringLiteral("CNY"));
    EXPECT_EQ(sale.fee, 60) << "what Alipay kept";
    EXPECT_EQ(sale.occurredAt, utc("2026-12-01T01:00:05Z")) << "完成时间, Beijing time";
    EXPECT_EQ(lines->at(1).occurredAt, utc("2026-12-01T15:59:58Z"));
    const StatementLine &refund = lines->at(2);
    EXPECT_EQ(refund.kind, LineKind::Refund);
    EXPECT_EQ(refund.reference, QStringLiteral("re_alA0000001")) << "keel's out_request_no";
    EXPECT_EQ(refund.channelReference,
              QStringLiteral("2026120122001400001000000001/re_alA0000001"));
    EXPECT_EQ(refund.amount, 3000);
    EXPECT_EQ(refund.fee, -18) << "what Alipay gave back";
    EXPECT_EQ(refund.paymentReference, QStringLiteral("ch_alA0000001"))
        << "the trade's 商户订单号, on its refund's line";
    EXPECT_TRUE(sale.paymentReference.isEmpty());
}

TEST(AlipayBillTest, TotalsThatDoNotTieABrokenArchiveAndBadGbkAreRefusedWhole)
{
    EXPECT_EQ(refusedFor(StatementFormat::Alipay, sample("alipay-tradebill-totals-off.zip")),
              QLatin1String("statement_totals"));
    EXPECT_EQ(refusedFor(StatementFormat::Alipay, sample("alipay-tradebill-bad-gbk.zip")),
              QLatin1String("statement_encoding"));
    const QByteArray archive = sample("alipay-tradebill.zip");
    EXPECT_EQ(refusedFor(StatementFormat::Alipay, archive.left(archive.size() - 30)),
              QLatin1String("statement_encoding"))
        << "a truncated archive";
    QByteArray corrupt = archive;
    corrupt[120] = char(corrupt[120] ^ 0x5a); // inside the first entry's deflated data
    EXPECT_EQ(refusedFor(StatementFormat::Alipay, corrupt), QLatin1String("statement_encoding"));
    EXPECT_EQ(refusedFor(StatementFormat::Alipay, sample("keel-statement.csv")),
              QLatin1String("statement_encoding"))
        << "not a ZIP at all";
    EXPECT_EQ(refusedFor(StatementFormat::Alipay, archive, QString(40, QLatin1Char('0'))),
              QLatin1String("statement_digest"));
}

// Every broken file kept beside the samples (make-alipay-samples.py,
// make-broken-samples.py) is refused naming its check, and its good sample read.
TEST(KeptStatementSamplesTest, EachBrokenFileIsRefusedNamingItsCheck)
{
    const struct {
        StatementFormat format;
        const char *file;
        const char *check;
    } kept[] = {
        {StatementFormat::Alipay, "alipay-tradebill.zip", "accepted"},
        {StatementFormat::Alipay, "alipay-tradebill-totals-off.zip", "statement_totals"},
        {StatementFormat::Alipay, "alipay-tradebill-bad-gbk.zip", "statement_encoding"},
        {StatementFormat::WechatPay, "wechatpay-tradebill-all.csv", "accepted"},
        {StatementFormat::WechatPay, "wechatpay-tradebill-totals-off.csv", "statement_totals"},
        {StatementFormat::WechatPay, "wechatpay-tradebill-bad-utf8.csv", "statement_encoding"},
        {StatementFormat::WechatPay, "wechatpay-tradebill-truncated.csv.gz", "statement_encoding"},
        {StatementFormat::Stripe, "stripe-payout-reconciliation.csv", "accepted"},
        {StatementFormat::Stripe, "stripe-payout-totals-off.csv", "statement_totals"},
        {StatementFormat::Stripe, "stripe-payout-bad-utf8.csv", "statement_encoding"},
        {StatementFormat::Stripe, "stripe-payout-adjustment.csv", "statement_unsupported"},
    };
    for (const auto &sampleFile : kept)
        EXPECT_EQ(refusedFor(sampleFile.format, sample(sampleFile.file)),
                  QLatin1String(sampleFile.check))
            << sampleFile.file;

    const QByteArray bill = sample("wechatpay-tradebill-all.csv");
    const QString sha1 = QString::fromLatin1(sample("wechatpay-tradebill-all.sha1").trimmed());
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, bill, sha1), QLatin1String("accepted"));
    QString wrong = sha1;
    wrong[0] = wrong[0] == u'0' ? u'1' : u'0';
    EXPECT_EQ(refusedFor(StatementFormat::WechatPay, bill, wrong),
              QLatin1String("statement_digest"));
}
