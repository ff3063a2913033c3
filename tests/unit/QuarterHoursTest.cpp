#include "core/recon/QuarterHours.h"

#include <gtest/gtest.h>

using namespace keel;

namespace {

QDateTime utc(const char *iso)
{
    return QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs);
}

} // namespace

TEST(QuarterHoursTest, EachTimeIsNamedByTheQuarterHourItFallsInOnceInOrder)
{
    QuarterHours times;
    for (const char *at :
         {"2026-12-01T16:00:00.000Z", "2026-12-01T15:59:59.999Z", "2026-12-01T16:14:59.999Z",
          "2026-12-01T15:45:00.000Z", "2026-12-01T16:00:00.000Z"})
        times.add(utc(at));
    EXPECT_EQ(times.size(), 2);
    // 15:45Z and 16:00Z on 2026-12-01.
    EXPECT_EQ(times.arrayParam(), QByteArray("{1796139900000,1796140800000}"));
}

TEST(QuarterHoursTest, ATimeBeforeTheEpochFallsInTheQuarterHourThatBeginsBeforeIt)
{
    QuarterHours times;
    times.add(utc("1969-12-31T23:59:59.999Z"));
    times.add(utc("1969-12-31T23:45:00.000Z"));
    EXPECT_EQ(times.arrayParam(), QByteArray("{-900000}"));
}
