#include "core/statement/StatementLine.h"

namespace keel {

QString statementFormatName(StatementFormat format)
{
    switch (format) {
    case StatementFormat::Alipay:
        return QStringLiteral("alipay");
    case StatementFormat::WechatPay:
        return QStringLiteral("wechatpay");
    case StatementFormat::Stripe:
        return QStringLiteral("stripe");
    case StatementFormat::Csv:
        return QStringLiteral("csv");
    }
    Q_UNREACHABLE();
    return {};
}

std::optional<StatementFormat> statementFormatNamed(QStringView name)
{
    for (StatementFormat format : {StatementFormat::Alipay, StatementFormat::WechatPay,
                                   StatementFormat::Stripe, StatementFormat::Csv})
        if (name == statementFormatName(format))
            return format;
    return std::nullopt;
}

QString lineKindName(LineKind kind)
{
    switch (kind) {
    case LineKind::Payment:
        return QStringLiteral("payment");
    case LineKind::Refund:
        return QStringLiteral("refund");
    case LineKind::ChannelFee:
        return QStringLiteral("fee");
    }
    Q_UNREACHABLE();
    return {};
}

} // namespace keel
