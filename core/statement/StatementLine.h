#pragma once

#include "core/Result.h"

#include <QDateTime>
#include <QString>
#include <QStringView>

#include <functional>
#include <optional>

namespace keel {

// The statement formats keel reads: Alipay's trade bill, WeChat Pay's v3
// trade bill, Stripe's payout reconciliation, and keel's own normalised CSV
// for any other channel.
enum class StatementFormat { Alipay, WechatPay, Stripe, Csv };

QString statementFormatName(StatementFormat format);
std::optional<StatementFormat> statementFormatNamed(QStringView name);

// A channel fee line is money the channel kept on no payment or refund of
// keel's (Stripe's own fees): booked with the statement's fees, matched
// against nothing, and never loaded by a run.
enum class LineKind { Payment, Refund, ChannelFee };

QString lineKindName(LineKind kind);

// One movement of money the channel reports. Amounts are minor units of
// `currency`; `fee` is what the channel kept (negative when it gave a fee
// back, as on a refund).
struct StatementLine {
    LineKind kind = LineKind::Payment;
    QString reference;        // the charge or refund id keel sent
    QString channelReference; // the channel's own id for it
    qint64 amount = 0;
    QString currency;
    qint64 fee = 0;
    QDateTime occurredAt; // UTC
    // A payment line that gives the payment's money back: the channel undid
    // a paid order on the merchant's request (WeChat Pay's REVOKED). It
    // carries the order's references and its amount, and nets against the
    // order's payment line.
    bool reverses = false;
    // A refund's payment as the channel names it: keel's charge id where the
    // file has it, else the channel's id of the charge; empty for payments
    // and where the file does not say. Stored with the line, not matched:
    // it tells which charge a refund keel has no record of came from.
    QString paymentReference = {};
};

// Takes a statement's lines as they are read, in the file's order. A line
// may be taken before the file is known to be whole: what it was given goes
// with the file if the file is refused. A failure stops the reading.
using LineSink = std::function<Status(StatementLine &&line)>;

} // namespace keel

// A statement is a million lines: growing the list moves them, never copies.
Q_DECLARE_TYPEINFO(keel::StatementLine, Q_RELOCATABLE_TYPE);
