// The carbon model: an hourly intensity profile integrated exactly across hour boundaries and
// cycles, embodied emissions amortised over a lifetime, the carbon-aware start of a deferrable job,
// and the profile's CSV reader and its errors.

#include "models/energy/carbon.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace me = fleetsim::models::energy;

namespace {

constexpr double kH = 3600;

// 500 g/kWh all day but 100 g/kWh over hours 10 to 13 (a solar dip, hand-checkable).
me::CarbonProfile dip_day()
{
  std::vector<double> g(24, 500.0);
  for (int h = 10; h < 14; ++h)
    g[static_cast<size_t>(h)] = 100.0;
  return me::CarbonProfile(g);
}

}  // namespace

TEST(CarbonProfile, SplitsADrawExactlyAtTheHourBoundary)
{
  const me::CarbonProfile p({100, 300});
  // 1 kW for half an hour at 100 g/kWh, then half an hour at 300: 50 g + 150 g.
  EXPECT_DOUBLE_EQ(p.operational_kg(1000, 0.5 * kH, 1.5 * kH), 0.2);
  EXPECT_DOUBLE_EQ(p.mean(0.5 * kH, 1.5 * kH), 200);
  EXPECT_DOUBLE_EQ(p.operational_kg(1000, 0.25 * kH, 0.75 * kH), 0.05);
}

TEST(CarbonProfile, RepeatsCyclicallyAndHonoursTheStartHour)
{
  const me::CarbonProfile p({100, 300, 200});
  EXPECT_EQ(p.at(0), 100);
  EXPECT_EQ(p.at(3 * kH), 100);  // the second cycle
  EXPECT_EQ(p.at(5.5 * kH), 200);
  EXPECT_DOUBLE_EQ(p.integral_hours(0, 7 * kH), 2 * 600 + 100);
  // Over 10 full cycles from an odd offset, the mean is the profile's.
  EXPECT_NEAR(p.mean(1.25 * kH, 31.25 * kH), 200, 1e-9);

  const me::CarbonProfile shifted({100, 300, 200}, 1);  // t = 0 falls in the profile's hour 1
  EXPECT_EQ(shifted.at(0), 300);
  EXPECT_EQ(shifted.at(2 * kH), 100);
  EXPECT_EQ(me::CarbonProfile({100, 300, 200}, 4).at(0), 300);  // 4 = 1 modulo the 3 hours
}

TEST(CarbonProfile, ThousandsOfSegmentsOverWeeksAddUpToTheWhole)
{
  std::vector<double> week(168);
  for (size_t h = 0; h < week.size(); ++h)
    week[h] = 200 + 150 * std::sin(0.3 * static_cast<double>(h));
  const me::CarbonProfile p(week, 5);
  const double end = 5 * 7 * 24 * kH;  // five weeks: five cycles
  double sum = 0, t = 0;
  for (int k = 0; t < end; ++k) {
    const double next = std::min(end, t + 17.3 + 4000 * ((k * 7919) % 13) / 13.0);  // uneven pieces
    sum += p.integral_hours(t, next);
    t = next;
  }
  const double cycle = std::accumulate(week.begin(), week.end(), 0.0);
  EXPECT_NEAR(sum, 5 * cycle, 1e-9 * 5 * cycle);
  EXPECT_NEAR(p.integral_hours(0, end), 5 * cycle, 1e-9 * 5 * cycle);
}

TEST(CarbonProfile, EmptyProfileEmitsNothing)
{
  const me::CarbonProfile p;
  EXPECT_TRUE(p.empty());
  EXPECT_EQ(p.operational_kg(1e6, 0, 1e6), 0);
  EXPECT_EQ(p.at(10), 0);
}

TEST(Embodied, AmortisesOverTheLifetime)
{
  me::EmbodiedSpec e;
  e.gpu_kg = 150;
  e.node_kg = 2500;
  e.lifetime_s = 6 * 365 * 86400.0;
  // One 8-GPU node for one year: (8 x 150 + 2500) / 6.
  EXPECT_NEAR(me::embodied_kg(e, 8, 1, 365 * 86400.0), 3700.0 / 6, 1e-9);
  EXPECT_EQ(me::embodied_kg(e, 8, 1, 0), 0);
}

TEST(LowestCarbonStart, WaitsForTheDipAndTakesTheEarliestOfEqualHours)
{
  const me::CarbonProfile p = dip_day();
  // Submitted at 7:30, may wait 12 h, runs 2 h: 10:00, 11:00 and 12:00 all run at 100; 10:00 wins.
  EXPECT_EQ(me::lowest_carbon_start(p, 7.5 * kH, 12 * kH, 2 * kH), 10 * kH);
  // A 6-hour run from 8:00, 9:00 or 10:00 covers the whole 4-hour dip (mean 233.3; from 7:30 it
  // would miss half an hour of it): the earliest of them wins.
  EXPECT_EQ(me::lowest_carbon_start(p, 7.5 * kH, 12 * kH, 6 * kH), 8 * kH);
  // Too short a delay to reach the dip: every candidate is 500, so it starts at once.
  EXPECT_EQ(me::lowest_carbon_start(p, 7.5 * kH, 1 * kH, 2 * kH), 7.5 * kH);
  // Already in the dip: now is as good as any.
  EXPECT_EQ(me::lowest_carbon_start(p, 10.25 * kH, 12 * kH, 1 * kH), 10.25 * kH);
  // The next day's dip counts too (the profile repeats).
  EXPECT_EQ(me::lowest_carbon_start(p, 20 * kH, 16 * kH, 1 * kH), 34 * kH);
  EXPECT_EQ(me::lowest_carbon_start(me::CarbonProfile(), 5, 12 * kH, kH), 5);
  EXPECT_EQ(me::lowest_carbon_start(p, 5, 0, kH), 5);
}

TEST(ProfileCsv, ReadsHoursAndSkipsComments)
{
  const me::ProfileLoad l = me::load_profile_text(
      "# a synthetic profile, built as README says\nhour,gco2_per_kwh\n0,120.5\n1, 300\n\n2,0\n", "p.csv");
  ASSERT_TRUE(l.ok()) << l.errors.front();
  EXPECT_EQ(l.g_per_kwh, (std::vector<double>{120.5, 300, 0}));
}

TEST(ProfileCsv, ReportsEachBadRowAtItsLine)
{
  const me::ProfileLoad l = me::load_profile_text("hour,gco2_per_kwh\n0,100\n2,100\n3,-5\n4,abc\n5,1,2\n6.5,1\n",
                                                  "grid.csv");
  ASSERT_EQ(l.errors.size(), 5u);
  EXPECT_EQ(l.errors[0], "grid.csv:3: error: hour 2 where hour 1 was expected (hours start at 0 and are consecutive)");
  EXPECT_EQ(l.errors[1], "grid.csv:4: error: intensity '-5' is not a number from 0 to 100000 (g CO2e per kWh)");
  EXPECT_EQ(l.errors[2], "grid.csv:5: error: intensity 'abc' is not a number from 0 to 100000 (g CO2e per kWh)");
  EXPECT_EQ(l.errors[3], "grid.csv:6: error: a row has 2 cells (hour, gco2_per_kwh), this one 3");
  EXPECT_EQ(l.errors[4], "grid.csv:7: error: hour '6.5' is not a whole number");
  EXPECT_TRUE(l.g_per_kwh.empty());
}

TEST(ProfileCsv, NeedsItsHeaderAndAtLeastOneHour)
{
  EXPECT_EQ(me::load_profile_text("time,g\n0,1\n", "a.csv").errors.front(),
            "a.csv:1: error: the header must be 'hour,gco2_per_kwh'");
  EXPECT_EQ(me::load_profile_text("hour,gco2_per_kwh\n", "b.csv").errors.front(),
            "b.csv: error: no hours after the header");
  EXPECT_EQ(me::load_profile_text("", "c.csv").errors.front(),
            "c.csv: error: no header: the profile must start with 'hour,gco2_per_kwh'");
}

// Fuzzing (docs/hardening.md, finding 7): intensities of 1e308 read as valid, and the profile's
// integral over its cycle (the prefix sums every emission is taken from) became infinite.
// Reproducer: tests/fuzz/corpus/fuzz_carbon/repro_intensity_sum_overflow.csv.
TEST(ProfileCsv, RejectsAnIntensityAbove100000InsteadOfSummingToInfinity)
{
  const me::ProfileLoad l = me::load_profile_text("hour,gco2_per_kwh\n0,1e308\n1,1e308\n2,100000\n3,100000.5\n", "g.csv");
  ASSERT_EQ(l.errors.size(), 3u);
  EXPECT_EQ(l.errors[0], "g.csv:2: error: intensity '1e308' is not a number from 0 to 100000 (g CO2e per kWh)");
  EXPECT_EQ(l.errors[2], "g.csv:5: error: intensity '100000.5' is not a number from 0 to 100000 (g CO2e per kWh)");
  EXPECT_TRUE(l.g_per_kwh.empty());
  const me::ProfileLoad top = me::load_profile_text("hour,gco2_per_kwh\n0,100000\n1,100000\n", "g.csv");
  ASSERT_TRUE(top.ok());
  const me::CarbonProfile p(top.g_per_kwh);
  EXPECT_DOUBLE_EQ(p.integral_hours(0, 2 * me::kSecondsPerHour), 200000);
}
