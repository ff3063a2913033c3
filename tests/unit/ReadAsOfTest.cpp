#include "core/recon/ReadAsOf.h"
#include "core/recon/DayQueries.h"

#include <gtest/gtest.h>

using namespace keel;

namespace {

// Every day query a verification repeats reads the lines, the postings, the
// channel's ids of keel's records and the channel's rules as the run read
// them. (What it still reads as it is now: the breaks and cases of
// SettledUnderChannelIds.)
TEST(ReadAsOfTest, EveryDayQueryReadsWhatTheRunRead)
{
    using namespace day_queries;
    const std::pair<const char *, const char *> queries[] = {
        {"DayOfChannel", DayOfChannel},
        {"LinesOfDay", LinesOfDay},
        {"LinesOfReferences", LinesOfReferences},
        {"RecordsOfChannelReferences", RecordsOfChannelReferences},
        {"ClearingAccounts", ClearingAccounts},
        {"DayRecords", DayRecords},
        {"NamedRecords", NamedRecords},
        {"SettledUnderChannelIds", SettledUnderChannelIds},
    };
    for (const auto &[name, sql] : queries) {
        const QByteArray rewritten = readAsOf(sql, 42);
        ASSERT_FALSE(rewritten.isEmpty()) << name;
        const QByteArray original(sql);
        for (const char *table : {"keel.recon_lines ", "keel.ledger_transactions ",
                                  "keel.recon_channels ", "keel.charges ", "keel.refunds "})
            EXPECT_FALSE(rewritten.contains(table)) << name << " still reads " << table;
        const bool readsRecords =
            original.contains("keel.charges") || original.contains("keel.refunds");
        EXPECT_EQ(rewritten.contains("keel.record_channel_references"), readsRecords) << name;
        const bool readsMoney = original.contains("keel.recon_lines") ||
                                original.contains("keel.ledger_transactions") || readsRecords;
        EXPECT_EQ(rewritten.contains("pg_visible_in_snapshot("), readsMoney) << name;
        EXPECT_EQ(rewritten.contains("FROM keel.recon_runs\nWHERE id = 42) rc"),
                  original.contains("keel.recon_channels"))
            << name;
    }
}

// A query naming a table in a form the rewrite does not know is not run on
// today's data by mistake: it comes back empty, which the server refuses.
TEST(ReadAsOfTest, ATableNamedOtherwiseGivesNoQuery)
{
    EXPECT_TRUE(readAsOf("SELECT count(*) FROM keel.recon_lines", 1).isEmpty());
    EXPECT_TRUE(readAsOf("SELECT 1 FROM keel.ledger_transactions,keel.charges", 1).isEmpty());
    EXPECT_TRUE(readAsOf("SELECT fee_rate_ppm FROM keel.recon_channels c", 1).isEmpty());
    EXPECT_TRUE(readAsOf("SELECT 1 FROM keel.refunds,keel.ledger_accounts a", 1).isEmpty());
    EXPECT_FALSE(readAsOf("SELECT 1 FROM keel.charges c", 1).isEmpty());
    EXPECT_FALSE(readAsOf("SELECT 1 FROM keel.ledger_accounts a", 1).isEmpty());
}

} // namespace
