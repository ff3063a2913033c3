#include "core/recon/BusinessDays.h"

#include <gtest/gtest.h>

#include <QSet>

#include <random>

using namespace keel;

namespace {

QDateTime utc(const char *iso)
{
    return QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs);
}

QStringList daysOf(const char *zone, std::initializer_list<const char *> times)
{
    BusinessDays days{QTimeZone(zone)};
    for (const char *at : times)
        days.add(utc(at));
    return days.days();
}

} // namespace

TEST(BusinessDaysTest, ATimeIsOnTheDayItHasInTheChannelsZone)
{
    EXPECT_EQ(daysOf("Asia/Shanghai", {"2026-12-01T16:00:00.000Z", "2026-12-01T15:59:59.999Z"}),
              (QStringList{QStringLiteral("2026-12-01"), QStringLiteral("2026-12-02")}));
    EXPECT_EQ(daysOf("UTC", {"2026-12-01T23:59:59.999Z", "2026-12-01T00:00:00.000Z"}),
              QStringList{QStringLiteral("2026-12-01")});
}

TEST(BusinessDaysTest, ADayOfTwentyFiveHoursEndsWhereItsZoneSays)
{
    // New York leaves summer time on 2026-11-01: that day runs 04:00Z to 05:00Z
    // the next morning.
    EXPECT_EQ(daysOf("America/New_York", {"2026-11-01T04:00:00.000Z", "2026-11-02T04:59:59.999Z"}),
              QStringList{QStringLiteral("2026-11-01")});
    EXPECT_EQ(daysOf("America/New_York", {"2026-11-01T04:00:00.000Z", "2026-11-02T05:00:00.000Z",
                                          "2026-11-01T03:59:59.999Z"}),
              (QStringList{QStringLiteral("2026-10-31"), QStringLiteral("2026-11-01"),
                           QStringLiteral("2026-11-02")}));
}

TEST(BusinessDaysTest, TheDaysAreThoseOfConvertingEveryTime)
{
    std::mt19937_64 random(27);
    const qint64 from = utc("2026-03-01T00:00:00.000Z").toMSecsSinceEpoch();
    std::uniform_int_distribution<qint64> within(0, qint64(240) * 24 * 3600 * 1000);
    for (const char *zone : {"America/New_York", "Europe/London", "Asia/Shanghai"}) {
        const QTimeZone tz(zone);
        BusinessDays days(tz);
        QSet<QString> converted;
        for (int i = 0; i < 20000; ++i) {
            // Mostly in order, as statements are, with jumps back and forth.
            const qint64 ms = i % 50 == 0 ? from + within(random) : from + i * qint64(900000);
            const QDateTime at = QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC);
            days.add(at);
            converted.insert(at.toTimeZone(tz).date().toString(Qt::ISODate));
        }
        QStringList expected(converted.cbegin(), converted.cend());
        expected.sort();
        EXPECT_EQ(days.days(), expected) << zone;
    }
}
