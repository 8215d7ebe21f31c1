#include "models/core/date_time.hpp"

#include <gtest/gtest.h>

namespace fleetsim::models::fleet {
namespace {

TEST(DateTime, CountsDaysFromTheEpochAcrossLeapYearsAndBeforeIt)
{
  static_assert(days_from_civil(1970, 1, 1) == 0);
  EXPECT_EQ(days_from_civil(2000, 3, 1), 11017);
  EXPECT_EQ(days_from_civil(2023, 5, 1), 19478);
  EXPECT_EQ(days_from_civil(1969, 12, 31), -1);
  EXPECT_EQ(days_from_civil(1600, 1, 1), -135140);
  EXPECT_EQ(days_from_civil(2024, 3, 1) - days_from_civil(2024, 2, 1), 29);
  EXPECT_EQ(days_from_civil(2100, 3, 1) - days_from_civil(2100, 2, 1), 28);  // not a leap year
}

TEST(DateTime, ReadsTheIsoFormsTracesUse)
{
  const double may_1_8h = 1682928000;  // 2023-05-01T08:00:00Z
  EXPECT_EQ(parse_date_time("2023-05-01T08:00:00"), may_1_8h);
  EXPECT_EQ(parse_date_time("2023-05-01 08:00:00"), may_1_8h);
  EXPECT_EQ(parse_date_time("2023-05-01T08:00:00Z"), may_1_8h);
  EXPECT_EQ(parse_date_time("2023-05-01T08:00"), may_1_8h);
  EXPECT_EQ(parse_date_time("2023-05-01 16:00:00+08:00"), may_1_8h);
  EXPECT_EQ(parse_date_time("2023-05-01T02:30:00-05:30"), may_1_8h);
  EXPECT_EQ(parse_date_time("2023-05-01T08:00:00.25Z"), may_1_8h + 0.25);
  EXPECT_EQ(parse_date_time("2023-05-01T08:00:00,5"), may_1_8h + 0.5);
  EXPECT_EQ(parse_date_time("1970-01-01T00:00:00Z"), 0.0);
  EXPECT_EQ(parse_date_time("2024-02-29T00:00:00"), 1709164800.0);
}

TEST(DateTime, RejectsMalformedAndOutOfRangeTimes)
{
  for (const char* bad : {"", "2023-05-01", "2023-5-01T08:00:00", "2023-02-29T00:00:00", "2023-13-01T00:00:00",
                          "2023-04-31T00:00:00", "2023-05-01T24:00:00", "2023-05-01T08:60:00", "2023-05-01T08:00:60",
                          "2023-05-01T08:00:00+8", "2023-05-01T08:00:00 +08:00", "2023-05-01T08:00:00.", "08:00:00",
                          "2023-05-01X08:00:00", "2023-05-01T08:00:00Zjunk", "1682928000"})
    EXPECT_FALSE(parse_date_time(bad).has_value()) << bad;
}

}  // namespace
}  // namespace fleetsim::models::fleet
