#pragma once

#include "core/Result.h"
#include "core/statement/StatementLine.h"

#include <QByteArray>
#include <QDate>

namespace keel {

class LibpqConnection;

// Breaks the simulated channel can be told to put in its statement, each on
// that many lines in the statement's order: for demos, and for tests that
// must find them.
struct StatementFaults {
    int drop = 0;         // a line left out: missing_at_channel
    int changeAmount = 0; // a line with a cent more: amount_mismatch
    int duplicate = 0;    // a line reported twice: duplicate
    int invent = 0;       // a payment keel never asked for: missing_at_keel
    int changeFee = 0;    // a fee off the contract: fee_variance
};

// How the statement is written: keel's CSV, or as a channel writes its own
// (WeChat Pay's trade bill, Alipay's ZIP of GBK files, Stripe's payout
// reconciliation report). A WeChat Pay bill is in one currency and Alipay's
// in CNY: the other currencies' lines are left out.
struct StatementLayout {
    StatementFormat format = StatementFormat::Csv;
    QString currency = QStringLiteral("CNY"); // a WeChat Pay bill's
    // Where the day is cut: UTC, or the channel's zone (Asia/Shanghai for a
    // statement keel reconciles as Alipay's or WeChat Pay's).
    QString dayZone = QStringLiteral("UTC");
};

// The simulated channel's statement of one day (layout.dayZone's), written from its own
// record: the sales, captures and refunds it approved, with its contracted
// fee (millionths of a payment; refunds return none).
Result<QByteArray> simulatorStatement(LibpqConnection &session, const QDate &day, qint64 feeRatePpm,
                                      const StatementFaults &faults = {},
                                      const StatementLayout &layout = {});

} // namespace keel
