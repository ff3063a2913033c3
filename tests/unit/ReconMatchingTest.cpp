#include "core/recon/Matching.h"

#include <gtest/gtest.h>

#include <QDateTime>

#include <algorithm>
#include <limits>
#include <random>

using namespace keel;

namespace {

const QDateTime DayStart = QDateTime(QDate(2026, 12, 1), QTime(0, 0), Qt::UTC);

QDateTime at(int hours)
{
    return DayStart.addSecs(qint64(hours) * 3600);
}

StatementLine payment(const char *reference, qint64 amount, int hour, const char *currency = "USD")
{
    return {LineKind::Payment,
            QString::fromLatin1(reference),
            QStringLiteral("X"),
            amount,
            QString::fromLatin1(currency),
            0,
            at(hour)};
}

BookedRecord booked(const char *reference, qint64 amount, int hour,
                    LineKind kind = LineKind::Payment)
{
    return {kind, QString::fromLatin1(reference), QStringLiteral("USD"), amount, true, at(hour),
            {}};
}

ReconInput dayOf(QList<StatementLine> lines, QList<BookedRecord> records,
                 QList<BookedRecord> named = {})
{
    return {{at(0), at(24), at(48)},
            std::move(lines),
            std::move(records),
            std::move(named),
            std::nullopt};
}

// "class:reference" of every break, in the outcome's order.
QStringList classes(const ReconOutcome &outcome)
{
    QStringList out;
    for (const ReconBreak &found : outcome.breaks)
        out << breakClassName(found.kind) + u':' + found.reference;
    return out;
}

QStringList names(std::initializer_list<const char *> items)
{
    QStringList out;
    for (const char *item : items)
        out << QString::fromLatin1(item);
    return out;
}

} // namespace

TEST(ReconMatchingTest, ALineMatchingItsPostingIsMatchedAndEachDifferenceHasItsClass)
{
    StatementLine refund = payment("re_r1", 300, 5);
    refund.kind = LineKind::Refund;
    const ReconOutcome outcome = matchDay(dayOf(
        {payment("ch_ok", 1000, 1), refund, payment("ch_amount", 2500, 2),
         payment("ch_currency", 3000, 3, "EUR"), payment("ch_twice", 400, 4),
         payment("ch_twice", 400, 6), payment("ch_status", 700, 7), payment("ch_nobody", 999, 8)},
        {booked("ch_ok", 1000, 1), booked("re_r1", 300, 5, LineKind::Refund),
         booked("ch_amount", 2000, 2), booked("ch_currency", 3000, 3), booked("ch_twice", 400, 4),
         booked("ch_silent", 500, 9)},
        {{LineKind::Payment,
          QStringLiteral("ch_status"),
          QStringLiteral("USD"),
          0,
          false,
          at(7),
          {}}}));
    EXPECT_EQ(outcome.matched, 2);
    EXPECT_EQ(classes(outcome), names({"missing_at_keel:ch_nobody", "missing_at_channel:ch_silent",
                                       "amount_mismatch:ch_amount", "status_mismatch:ch_status",
                                       "currency_mismatch:ch_currency", "duplicate:ch_twice"}));
    const ReconBreak &amount = outcome.breaks.at(2);
    EXPECT_EQ(amount.channelAmount, 2500);
    EXPECT_EQ(amount.keelAmount, 2000);
    EXPECT_EQ(outcome.breaks.at(5).channelAmount, 800) << "a duplicate reports what it took";
    EXPECT_EQ(outcome.breaks.at(1).channelAmount, 0);
    EXPECT_EQ(outcome.breaks.at(1).keelAmount, 500);
}

TEST(ReconMatchingTest, ACaptureTheChannelReportsTheNextDayIsMatchedOnTheDayKeelMovedIt)
{
    // keel posted at 23:00; the channel's line came at 01:00 the next day. The
    // next day's line of a payment keel never made is that day's business.
    const ReconOutcome outcome =
        matchDay(dayOf({payment("ch_late", 100, 25), payment("ch_tomorrow", 200, 26)},
                       {booked("ch_late", 100, 23)}));
    EXPECT_EQ(outcome.matched, 1);
    EXPECT_TRUE(outcome.breaks.isEmpty()) << qPrintable(classes(outcome).join(u' '));
}

TEST(ReconMatchingTest, ALineForMoneyKeelMovedYesterdayIsYesterdaysAndNotJudgedAgain)
{
    // The channel's line at 00:00:01 for a capture keel posted at 23:59:59
    // the day before: that day's run judged it; this one must not report it
    // a second time, matched or not.
    const ReconOutcome outcome =
        matchDay(dayOf({payment("ch_yesterday", 150, 1)}, {}, {booked("ch_yesterday", 100, -1)}));
    EXPECT_EQ(outcome.matched, 0);
    EXPECT_TRUE(outcome.breaks.isEmpty()) << qPrintable(classes(outcome).join(u' '));
}

TEST(ReconMatchingTest, TheSamePaymentReportedOnTwoDaysIsOneDuplicateOnTheDayKeelMovedIt)
{
    const QList<StatementLine> lines{payment("ch_twice", 100, 2), payment("ch_twice", 100, 74)};
    const ReconOutcome first = matchDay(dayOf(lines, {booked("ch_twice", 100, 1)}));
    EXPECT_EQ(classes(first), names({"duplicate:ch_twice"}));
    EXPECT_EQ(first.breaks.constFirst().channelAmount, 200);
    ReconInput third = dayOf(lines, {}, {booked("ch_twice", 100, 1)});
    third.day = {at(72), at(96), at(120)};
    EXPECT_TRUE(matchDay(third).breaks.isEmpty()) << "reported once, not again three days later";
}

TEST(ReconMatchingTest, AFeeOtherThanTheContractedRateIsAFeeVariance)
{
    StatementLine fair = payment("ch_fair", 10000, 1);
    fair.fee = 60;
    StatementLine dear = payment("ch_dear", 10000, 2);
    dear.fee = 75;
    StatementLine refund = payment("re_back", 10000, 3);
    refund.kind = LineKind::Refund;
    refund.fee = -60;
    ReconInput input =
        dayOf({fair, dear, refund}, {booked("ch_fair", 10000, 1), booked("ch_dear", 10000, 2),
                                     booked("re_back", 10000, 3, LineKind::Refund)});
    EXPECT_TRUE(matchDay(input).breaks.isEmpty()) << "no contract, no fee check";
    input.feeRatePpm = 6000; // 0.6 %
    const ReconOutcome outcome = matchDay(input);
    EXPECT_EQ(outcome.matched, 2);
    EXPECT_EQ(classes(outcome), names({"fee_variance:ch_dear"}));
    EXPECT_EQ(outcome.breaks.constFirst().channelAmount, 75);
    EXPECT_EQ(outcome.breaks.constFirst().keelAmount, 60);
}

TEST(ReconMatchingTest, TheContractedFeeRoundsHalfUpWithoutOverflow)
{
    EXPECT_EQ(contractedFee(149, 10000), 1);
    EXPECT_EQ(contractedFee(150, 10000), 2);
    EXPECT_EQ(contractedFee(0, 6000), 0);
    EXPECT_EQ(contractedFee(std::numeric_limits<qint64>::max(), 1000000),
              std::numeric_limits<qint64>::max());
    EXPECT_EQ(contractedFee(999999999999999, 6000), 5999999999999 + 1);
}

TEST(ReconMatchingTest, PaymentsAndRefundsOfOneReferenceAreTwoRecords)
{
    StatementLine refund = payment("ch_same", 100, 2);
    refund.kind = LineKind::Refund;
    const ReconOutcome outcome =
        matchDay(dayOf({payment("ch_same", 100, 1), refund}, {booked("ch_same", 100, 1)}));
    EXPECT_EQ(outcome.matched, 1);
    EXPECT_EQ(classes(outcome), names({"missing_at_keel:ch_same"}));
    EXPECT_EQ(outcome.breaks.constFirst().lineKind, LineKind::Refund);
}

TEST(ReconMatchingTest, TheResultIsTheSameBytesWhateverOrderTheInputCameIn)
{
    QList<StatementLine> lines;
    QList<BookedRecord> records;
    for (int i = 0; i < 200; ++i) {
        const QByteArray reference = "ch_" + QByteArray::number(i);
        if (i % 7 != 0)
            lines.append(payment(reference.constData(), 100 + (i % 5 == 0), i % 24));
        if (i % 11 != 0)
            records.append(booked(reference.constData(), 100, i % 24));
        if (i % 13 == 0) // the channel's duplicate, in another currency
            lines.append(payment(reference.constData(), 100, i % 24, "EUR"));
    }
    const QByteArray first = canonicalResult(QStringLiteral("sim"), QStringLiteral("2026-12-01"),
                                             matchDay(dayOf(lines, records)));
    std::mt19937 shuffle(20261203);
    std::shuffle(lines.begin(), lines.end(), shuffle);
    std::shuffle(records.begin(), records.end(), shuffle);
    const QByteArray again = canonicalResult(QStringLiteral("sim"), QStringLiteral("2026-12-01"),
                                             matchDay(dayOf(lines, records)));
    EXPECT_EQ(first, again);
    EXPECT_TRUE(first.startsWith(R"({"channel":"sim","date":"2026-12-01","matched":)"))
        << first.left(80).constData();
}

// A record keel moved no money for may still hold money a person settled for
// its line before keel knew the line was its: that is keel's side, or the
// line's money would be parked again.
TEST(ReconMatchingTest, AnUnbookedRecordsSettledMoneyIsKeelsSideOfItsStatusMismatch)
{
    const ReconOutcome outcome = matchDay(dayOf({payment("ch_voided", 700, 7)}, {},
                                                {{LineKind::Payment,
                                                  QStringLiteral("ch_voided"),
                                                  QStringLiteral("USD"),
                                                  700,
                                                  false,
                                                  at(7),
                                                  {}}}));
    ASSERT_EQ(classes(outcome), names({"status_mismatch:ch_voided"}));
    EXPECT_EQ(outcome.breaks.at(0).channelAmount, 700);
    EXPECT_EQ(outcome.breaks.at(0).keelAmount, 700);
}

namespace {

StatementLine reversalOf(const char *reference, qint64 amount, int hour)
{
    StatementLine line = payment(reference, amount, hour);
    line.reverses = true;
    return line;
}

BookedRecord unbooked(const char *reference, int hour)
{
    return {LineKind::Payment,
            QString::fromLatin1(reference),
            QStringLiteral("USD"),
            0,
            false,
            at(hour),
            {}};
}

} // namespace

// A paid order the channel gave back on keel's reverse nets to nothing: it
// matches a charge keel failed, or never booked, and not one keel captured.
TEST(ReconMatchingTest, APaymentAndItsReversalNetToNothingAgainstKeelsRecord)
{
    const ReconOutcome outcome = matchDay(dayOf(
        {payment("ch_failed", 500, 1), reversalOf("ch_failed", 500, 2),
         payment("ch_unknown", 300, 3), reversalOf("ch_unknown", 300, 3),
         payment("ch_kept", 800, 4), reversalOf("ch_kept", 800, 5), payment("ch_part", 900, 6),
         reversalOf("ch_part", 400, 7), payment("ch_keptPart", 900, 6),
         reversalOf("ch_keptPart", 400, 7), reversalOf("ch_twice", 200, 8),
         reversalOf("ch_twice", 200, 9), payment("ch_twice", 200, 1)},
        {booked("ch_kept", 800, 4), booked("ch_keptPart", 500, 6)},
        {unbooked("ch_failed", 1), unbooked("ch_part", 6), unbooked("ch_twice", 1)}));
    EXPECT_EQ(outcome.matched, 2) << "ch_failed and ch_unknown";
    EXPECT_EQ(classes(outcome), names({"amount_mismatch:ch_keptPart", "status_mismatch:ch_kept",
                                       "status_mismatch:ch_part", "duplicate:ch_twice"}));
    EXPECT_EQ(outcome.breaks.at(0).channelAmount, 500)
        << "an order is reversed whole: a part given back is looked at, though keel holds the rest";
    EXPECT_EQ(outcome.breaks.at(1).channelAmount, 0);
    EXPECT_EQ(outcome.breaks.at(1).keelAmount, 800);
    EXPECT_EQ(outcome.breaks.at(2).channelAmount, 500) << "what the channel still holds";
    EXPECT_EQ(outcome.breaks.at(3).channelAmount, -200)
        << "a reversal reported twice gives back twice: the channel's net, never money in";
    for (const ReconBreak &found : outcome.breaks)
        EXPECT_EQ(found.lineKind, LineKind::Payment);
}

// A reversal whose payment the channel has not reported: the money went out
// without coming in, which keel's record must explain.
TEST(ReconMatchingTest, AReversalAloneIsABreakOfWhatTheChannelGaveBack)
{
    const ReconOutcome outcome =
        matchDay(dayOf({reversalOf("ch_failed", 500, 2), reversalOf("ch_kept", 800, 5),
                        reversalOf("ch_nobody", 300, 6)},
                       {booked("ch_kept", 800, 4)}, {unbooked("ch_failed", 1)}));
    EXPECT_EQ(outcome.matched, 0);
    EXPECT_EQ(classes(outcome), names({"missing_at_keel:ch_nobody", "amount_mismatch:ch_kept",
                                       "status_mismatch:ch_failed"}));
    EXPECT_EQ(outcome.breaks.at(0).channelAmount, -300);
    EXPECT_EQ(outcome.breaks.at(1).channelAmount, -800);
    EXPECT_EQ(outcome.breaks.at(2).channelAmount, -500);
}

// The reversal of a payment reported yesterday, against a charge keel never
// booked: yesterday owns the order, and runs again to see both lines.
TEST(ReconMatchingTest, AReversalTheDayAfterItsPaymentIsJudgedWithItOnThePaymentsDay)
{
    StatementLine yesterday = payment("ch_failed", 500, -2);
    ReconInput today =
        dayOf({yesterday, reversalOf("ch_failed", 500, 3)}, {}, {unbooked("ch_failed", -2)});
    EXPECT_EQ(matchDay(today).matched, 0);
    EXPECT_TRUE(matchDay(today).breaks.isEmpty()) << "not today's to judge";
    ReconInput paymentsDay = today;
    paymentsDay.day = {at(-24), at(0), at(24)};
    EXPECT_EQ(matchDay(paymentsDay).matched, 1);
    EXPECT_TRUE(matchDay(paymentsDay).breaks.isEmpty());
}

namespace {

StatementLine refundLine(const char *reference, qint64 amount, int hour, bool reverses = false)
{
    StatementLine line = payment(reference, amount, hour);
    line.kind = LineKind::Refund;
    line.reverses = reverses;
    return line;
}

BookedRecord failedRefund(const char *reference, int hour)
{
    BookedRecord record = unbooked(reference, hour);
    record.kind = LineKind::Refund;
    return record;
}

} // namespace

// A dispute takes a captured charge's money back: the channel holds nothing
// where keel holds the capture, until the dispute is reversed and the money
// given again (a reversal of negative amount), which leaves the charge as if
// reported once. The order the lines come in does not matter.
TEST(ReconMatchingTest, ADisputedChargeDiffersUntilItsMoneyIsGivenAgain)
{
    const ReconOutcome outcome = matchDay(dayOf(
        {payment("ch_won", 900, 1), reversalOf("ch_won", 900, 2), reversalOf("ch_won", -900, 3),
         payment("ch_lost", 700, 1), reversalOf("ch_lost", 700, 2), payment("ch_partly", 800, 1),
         reversalOf("ch_partly", 300, 2), payment("ch_short", 600, 1),
         reversalOf("ch_short", 600, 2), reversalOf("ch_short", -500, 3),
         payment("ch_again", 400, 1), reversalOf("ch_again", 400, 2),
         reversalOf("ch_again", -400, 3), payment("ch_again", 400, 4), payment("ch_tied", 300, 1),
         reversalOf("ch_tied", -300, 2), reversalOf("ch_tied", 300, 2)},
        {booked("ch_won", 900, 1), booked("ch_lost", 700, 1), booked("ch_partly", 800, 1),
         booked("ch_short", 600, 1), booked("ch_again", 400, 1), booked("ch_tied", 300, 1)}));
    EXPECT_EQ(outcome.matched, 2) << "ch_won, and ch_tied whose two rows share a second";
    EXPECT_EQ(classes(outcome), names({"amount_mismatch:ch_partly", "amount_mismatch:ch_short",
                                       "status_mismatch:ch_lost", "duplicate:ch_again"}));
    EXPECT_EQ(outcome.breaks.at(0).channelAmount, 500) << "what the channel still holds";
    EXPECT_EQ(outcome.breaks.at(1).channelAmount, 500) << "given again short";
    EXPECT_EQ(outcome.breaks.at(2).channelAmount, 0);
    EXPECT_EQ(outcome.breaks.at(2).keelAmount, 700);
    EXPECT_EQ(outcome.breaks.at(3).channelAmount, 800) << "reported twice";
}

// Money given again whose taking back no statement has shown (its report
// refused, withdrawn or not imported yet) is a difference to chase: never a
// second report of the payment, whose extra would be parked.
TEST(ReconMatchingTest, MoneyGivenAgainWithoutItsTakingBackIsChasedNotParked)
{
    const ReconOutcome outcome =
        matchDay(dayOf({payment("ch_kept", 900, 1), reversalOf("ch_kept", -900, 3),
                        reversalOf("ch_noCharge", 500, 2), reversalOf("ch_noCharge", -500, 3)},
                       {booked("ch_kept", 900, 1), booked("ch_noCharge", 500, 1)}));
    EXPECT_EQ(outcome.matched, 0);
    EXPECT_EQ(classes(outcome), names({"amount_mismatch:ch_noCharge", "status_mismatch:ch_kept"}));
    EXPECT_EQ(outcome.breaks.at(0).channelAmount, 0)
        << "a dispute and its reversal without the charge's own line: not the charge whole";
    EXPECT_EQ(outcome.breaks.at(1).channelAmount, 1800);
    EXPECT_EQ(outcome.breaks.at(1).keelAmount, 900);
}

// A refund the channel reported and then undid (it failed) gave nothing
// back: it matches a refund keel failed, and not one whose money keel let go.
TEST(ReconMatchingTest, ARefundTheChannelUndidNetsToNothingAgainstKeelsRefund)
{
    const ReconOutcome outcome = matchDay(
        dayOf({refundLine("re_failed", 300, 1), refundLine("re_failed", 300, 2, true),
               refundLine("re_paid", 200, 1), refundLine("re_paid", 200, 2, true)},
              {booked("re_paid", 200, 1, LineKind::Refund)}, {failedRefund("re_failed", 1)}));
    EXPECT_EQ(outcome.matched, 1) << "re_failed";
    ASSERT_EQ(classes(outcome), names({"status_mismatch:re_paid"}));
    EXPECT_EQ(outcome.breaks.at(0).lineKind, LineKind::Refund);
    EXPECT_EQ(outcome.breaks.at(0).channelAmount, 0);
    EXPECT_EQ(outcome.breaks.at(0).keelAmount, 200);
}

// Once a person took back what the channel took (recon_break.take_back),
// keel's record holds what the channel holds: a dispute lost in part, or
// whole, then matches. A record taken back to less than the channel holds,
// or not taken back at all, still differs, and one whose lines are gone (a
// statement withdrawn) is missing at the channel, even taken back to 0.
TEST(ReconMatchingTest, WhatAPersonTookBackAsTheChannelDidMatches)
{
    const auto takenBack = [](const char *reference, qint64 amount) {
        BookedRecord record = booked(reference, amount, 1);
        record.takenBack = true;
        return record;
    };
    const ReconOutcome outcome = matchDay(
        dayOf({payment("ch_partly", 800, 1), reversalOf("ch_partly", 300, 2),
               payment("ch_lost", 700, 1), reversalOf("ch_lost", 700, 2),
               payment("ch_tooFar", 800, 1), reversalOf("ch_tooFar", 300, 2),
               payment("ch_kept", 800, 1), reversalOf("ch_kept", 300, 2)},
              {takenBack("ch_partly", 500), takenBack("ch_lost", 0), takenBack("ch_unpaid", 0),
               takenBack("ch_tooFar", 400), booked("ch_kept", 500, 1), takenBack("ch_half", 250)}));
    EXPECT_EQ(outcome.matched, 2) << "ch_partly, ch_lost";
    EXPECT_EQ(classes(outcome), names({"missing_at_channel:ch_half", "missing_at_channel:ch_unpaid",
                                       "amount_mismatch:ch_kept", "amount_mismatch:ch_tooFar"}));
    EXPECT_EQ(outcome.breaks.at(3).channelAmount, 500);
    EXPECT_EQ(outcome.breaks.at(3).keelAmount, 400);
}

// A run past the lag parked keel's shortfall as owed (migration 0050): keel
// then holds what the channel shows. A charge the channel never reported
// holds nothing and matches; one whose dispute the channel partly won holds
// what the dispute left and matches; one parked to another amount does not.
TEST(ReconMatchingTest, WhatARunParkedAsOwedMatches)
{
    const auto parked = [](const char *reference, qint64 amount) {
        BookedRecord record = booked(reference, amount, 1);
        record.shortfallParked = true;
        return record;
    };
    const ReconOutcome outcome =
        matchDay(dayOf({payment("ch_partly", 800, 1), reversalOf("ch_partly", 300, 2),
                        payment("ch_other", 800, 1), reversalOf("ch_other", 300, 2)},
                       {parked("ch_unpaid", 0), parked("ch_partly", 500), parked("ch_other", 600),
                        booked("ch_zero", 0, 1)}));
    EXPECT_EQ(outcome.matched, 3) << "ch_unpaid, ch_partly and ch_zero";
    EXPECT_EQ(classes(outcome), names({"amount_mismatch:ch_other"}));
}
