#include "models/core/units.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace fleetsim::units {
namespace {

double parsed(std::string_view text, Dimension dim)
{
  const ParseResult r = parse_quantity(text, dim);
  EXPECT_TRUE(r.ok()) << text << ": " << r.error;
  return r.value;
}

TEST(ParseQuantity, ReadsBitsPerSecondAsBytesWhenUnitIsGbps)
{
  EXPECT_DOUBLE_EQ(parsed("400Gbps", Dimension::Bandwidth), 5e10);
  EXPECT_DOUBLE_EQ(parsed("400Gb/s", Dimension::Bandwidth), 5e10);
}

TEST(ParseQuantity, ReadsBytesPerSecondWhenUnitHasUpperCaseB)
{
  EXPECT_DOUBLE_EQ(parsed("2TB/s", Dimension::Bandwidth), 2e12);
  EXPECT_DOUBLE_EQ(parsed("50GBps", Dimension::Bandwidth), 5e10);
}

TEST(ParseQuantity, ConvertsMinutesHoursAndDaysToSeconds)
{
  EXPECT_DOUBLE_EQ(parsed("30min", Dimension::Time), 1800.0);
  EXPECT_DOUBLE_EQ(parsed("54d", Dimension::Time), 4665600.0);
  EXPECT_DOUBLE_EQ(parsed("5us", Dimension::Time), 5e-6);
  EXPECT_DOUBLE_EQ(parsed("2w", Dimension::Time), 1209600.0);
}

TEST(ParseQuantity, AcceptsSpacesBetweenNumberAndUnit)
{
  EXPECT_DOUBLE_EQ(parsed("1.5 h", Dimension::Time), 5400.0);
  EXPECT_DOUBLE_EQ(parsed("  700 W ", Dimension::Power), 700.0);
}

TEST(ParseQuantity, ReadsFlopRateWhenUnitIsTflops)
{
  EXPECT_DOUBLE_EQ(parsed("989TFLOPS", Dimension::FlopRate), 9.89e14);
  EXPECT_DOUBLE_EQ(parsed("1.979PFLOP/s", Dimension::FlopRate), 1.979e15);
}

TEST(ParseQuantity, UsesBinaryFactorOnlyForIecPrefixes)
{
  EXPECT_DOUBLE_EQ(parsed("4GiB", Dimension::Bytes), 4294967296.0);
  EXPECT_DOUBLE_EQ(parsed("4GB", Dimension::Bytes), 4e9);
}

TEST(ParseQuantity, ReadsPowerWhenUnitIsWattOrMultiple)
{
  EXPECT_DOUBLE_EQ(parsed("700W", Dimension::Power), 700.0);
  EXPECT_DOUBLE_EQ(parsed("25MW", Dimension::Power), 2.5e7);
}

TEST(ParseQuantity, ReadsScientificNotationWhenUnitFollows)
{
  EXPECT_DOUBLE_EQ(parsed("1e3s", Dimension::Time), 1000.0);
}

TEST(ParseQuantity, FailsWithNoUnitMessageWhenNumberIsBare)
{
  const ParseResult r = parse_quantity("400", Dimension::Bandwidth);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("no unit"), std::string::npos) << r.error;
}

TEST(ParseQuantity, FailsAndNamesUnitWhenUnitIsUnknown)
{
  const ParseResult r = parse_quantity("3 fortnights", Dimension::Time);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("unknown time unit 'fortnights'"), std::string::npos) << r.error;
}

TEST(ParseQuantity, FailsWhenUnitBelongsToAnotherDimension)
{
  const ParseResult r = parse_quantity("5GB", Dimension::Time);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("'GB'"), std::string::npos) << r.error;
  EXPECT_FALSE(parse_quantity("400Gbps", Dimension::Bytes).ok());
  EXPECT_FALSE(parse_quantity("30min", Dimension::Power).ok());
}

TEST(ParseQuantity, TreatsUnitCaseAsSignificantWhenBitsAndBytesDiffer)
{
  EXPECT_DOUBLE_EQ(parsed("8Gbps", Dimension::Bandwidth), 1e9);
  EXPECT_DOUBLE_EQ(parsed("8GBps", Dimension::Bandwidth), 8e9);
  EXPECT_FALSE(parse_quantity("8gbps", Dimension::Bandwidth).ok());
}

TEST(ParseQuantity, FailsWhenTextIsEmptyOrBlank)
{
  const ParseResult empty = parse_quantity("", Dimension::Time);
  EXPECT_FALSE(empty.ok());
  EXPECT_NE(empty.error.find("empty"), std::string::npos) << empty.error;
  EXPECT_FALSE(parse_quantity("   ", Dimension::Time).ok());
}

TEST(ParseQuantity, FailsWhenNumberIsNotFinite)
{
  EXPECT_FALSE(parse_quantity("nan", Dimension::Time).ok());
  EXPECT_FALSE(parse_quantity("nans", Dimension::Time).ok());
  EXPECT_FALSE(parse_quantity("infs", Dimension::Time).ok());
}

TEST(ParseQuantity, FailsWhenNumberIsMissing)
{
  const ParseResult r = parse_quantity("GB/s", Dimension::Bandwidth);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("is not a bandwidth"), std::string::npos) << r.error;
}

TEST(FormatQuantity, PicksLargestUnitNotAboveValue)
{
  EXPECT_EQ(format_quantity(2e12, Dimension::Bandwidth), "2TB/s");
  EXPECT_EQ(format_quantity(1800.0, Dimension::Time), "30min");
  EXPECT_EQ(format_quantity(5400.0, Dimension::Time), "1.5h");
  EXPECT_EQ(format_quantity(9.89e14, Dimension::FlopRate), "989TFLOPS");
  EXPECT_EQ(format_quantity(700.0, Dimension::Power), "700W");
  EXPECT_EQ(format_quantity(0.0, Dimension::Time), "0s");
}

TEST(FormatQuantity, RoundTripsThroughParseAcrossMagnitudes)
{
  struct Case {
    double value;
    Dimension dim;
  };
  const Case cases[] = {
      {2.5e-9, Dimension::Time},      {5e-6, Dimension::Time},        {0.0425, Dimension::Time},
      {1.5, Dimension::Time},         {1800.0, Dimension::Time},      {4665600.0, Dimension::Time},
      {3.0, Dimension::Bytes},        {4.29497e9, Dimension::Bytes},  {2.4e14, Dimension::Bytes},
      {7.5e17, Dimension::Bytes},     {125.0, Dimension::Bandwidth},  {5e10, Dimension::Bandwidth},
      {4.5e11, Dimension::Bandwidth}, {9.89e14, Dimension::FlopRate}, {1.6e19, Dimension::FlopRate},
      {0.25, Dimension::Power},       {2.5e7, Dimension::Power},      {-90.0, Dimension::Time},
  };
  for (const Case& c : cases) {
    const std::string text = format_quantity(c.value, c.dim);
    const ParseResult back = parse_quantity(text, c.dim);
    ASSERT_TRUE(back.ok()) << text << ": " << back.error;
    EXPECT_NEAR(back.value, c.value, 1e-6 * std::fabs(c.value)) << text;
  }
}

TEST(FormatQuantity, KeepsSixSignificantDigitsWhenValueHasMore)
{
  // 1.5 GiB = 1610612736 B prints in decimal units and rounds to 6 digits.
  EXPECT_EQ(format_quantity(1610612736.0, Dimension::Bytes), "1.61061GB");
}

TEST(Quantity, DividesBytesByBandwidthIntoSeconds)
{
  const Seconds t = Bytes(1e9) / BytesPerSecond(5e10);
  EXPECT_DOUBLE_EQ(t.si(), 0.02);
}

TEST(Quantity, MultipliesBandwidthByTimeIntoBytes)
{
  const Bytes b = BytesPerSecond(2e12) * Seconds(0.5);
  EXPECT_DOUBLE_EQ(b.si(), 1e12);
}

TEST(Quantity, DividesFlopsByFlopRateIntoSeconds)
{
  const Seconds t = Flops(9.89e17) / FlopsPerSecond(9.89e14);
  EXPECT_DOUBLE_EQ(t.si(), 1000.0);
}

TEST(Quantity, AddsScalesAndComparesWithinOneDimension)
{
  Seconds t(10.0);
  t += Seconds(5.0);
  t -= Seconds(3.0);
  EXPECT_DOUBLE_EQ(t.si(), 12.0);
  EXPECT_DOUBLE_EQ((2.0 * t).si(), 24.0);
  EXPECT_DOUBLE_EQ((t / 4.0).si(), 3.0);
  EXPECT_DOUBLE_EQ(t / Seconds(4.0), 3.0);
  EXPECT_LT(Seconds(1.0), Seconds(2.0));
  EXPECT_EQ(Bytes(3.0) + Bytes(4.0), Bytes(7.0));
}

TEST(DimensionName, NamesEachDimension)
{
  EXPECT_EQ(dimension_name(Dimension::Time), "time");
  EXPECT_EQ(dimension_name(Dimension::Bytes), "size");
  EXPECT_EQ(dimension_name(Dimension::Bandwidth), "bandwidth");
  EXPECT_EQ(dimension_name(Dimension::FlopRate), "flop rate");
  EXPECT_EQ(dimension_name(Dimension::Power), "power");
}

}  // namespace
}  // namespace fleetsim::units
