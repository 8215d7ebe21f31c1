// Unit tests of the report's chart code: ticks, scales, x placement, downsampling, escaping,
// number formats, per-pixel state shares, step series and storage figures, and the CSV reader.
#include "report/svg_chart.hpp"
#include "report/checkpoint_report.hpp"
#include "report/fleet_charts.hpp"
#include "report/report_inputs.hpp"
#include "report/run_report.hpp"
#include "report/storage_report.hpp"
#include "report/sweep_report.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace {

using namespace fleetsim::report;

TEST(NiceTicks, AreRoundMultiplesInsideTheRange)
{
  EXPECT_EQ(nice_ticks(0, 54, 10), (std::vector<double>{0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50}));
  EXPECT_EQ(nice_ticks(0, 1, 5), (std::vector<double>{0, 0.2, 0.4, 0.6000000000000001, 0.8, 1}));
  const auto t = nice_ticks(0.634, 1.0, 5);  // 0.366 / 5 = 0.073: a step of 0.1
  ASSERT_EQ(t.size(), 4u);
  EXPECT_NEAR(t.front(), 0.7, 1e-12);
  EXPECT_NEAR(t.back(), 1.0, 1e-12);
  const auto u = nice_ticks(0.8, 1.0, 5);  // 0.04: a step of 0.05
  ASSERT_EQ(u.size(), 5u);
  for (std::size_t i = 1; i < u.size(); ++i)
    EXPECT_NEAR(u[i] - u[i - 1], 0.05, 1e-12);
  EXPECT_EQ(nice_step(1617, 5), 500);
  EXPECT_EQ(nice_step(9.7e12, 5), 2e12);
}

TEST(NiceDomain, WidensToRoundNumbersAndNeverCollapses)
{
  const Domain d = nice_domain(0.634, 1.0, 5);
  EXPECT_DOUBLE_EQ(d.lo, 0.6);
  EXPECT_DOUBLE_EQ(d.hi, 1.0);
  const Domain z = nice_domain(0, 0, 5);
  EXPECT_EQ(z.lo, 0);
  EXPECT_GT(z.hi, 0);
  const Domain c = nice_domain(12, 12, 5);
  EXPECT_LT(c.lo, 12);
  EXPECT_GT(c.hi, 12);
  EXPECT_GE(nice_domain(0, 168, 5).hi, 168);  // the longest bar fits
}

TEST(Scale, LinearMapsEndsAndMiddle)
{
  const Scale s = Scale::linear(0, 10, 100, 300);
  EXPECT_DOUBLE_EQ(s(0), 100);
  EXPECT_DOUBLE_EQ(s(10), 300);
  EXPECT_DOUBLE_EQ(s(2.5), 150);
  const Scale inverted = Scale::linear(0, 1, 200, 10);  // y axes grow upwards
  EXPECT_DOUBLE_EQ(inverted(1), 10);
}

TEST(Scale, Log2SpacesDoublingsEvenly)
{
  const Scale s = Scale::log2(1024, 65536, 0, 600);
  EXPECT_DOUBLE_EQ(s(1024), 0);
  EXPECT_DOUBLE_EQ(s(65536), 600);
  EXPECT_NEAR(s(2048) - s(1024), 100, 1e-9);
  EXPECT_NEAR(s(32768) - s(16384), 100, 1e-9);
  EXPECT_EQ(s.ticks(5), (std::vector<double>{1024, 2048, 4096, 8192, 16384, 32768, 65536}));
}

TEST(Scale, CategoricalCentresEachSlot)
{
  const Scale s = Scale::categorical(4, 0, 400);
  EXPECT_DOUBLE_EQ(s(0), 50);
  EXPECT_DOUBLE_EQ(s(3), 350);
  EXPECT_EQ(s.ticks().size(), 4u);
}

TEST(PlaceValues, ChoosesLog2LinearOrCategorical)
{
  const auto sizes = place_values({"1024", "2048", "4096", "65536"});
  EXPECT_EQ(sizes.kind, XPlacement::Kind::Log2);
  EXPECT_EQ(sizes.positions, (std::vector<double>{1024, 2048, 4096, 65536}));
  const auto intervals = place_values({"5min", "10min", "20min", "40min"});
  EXPECT_EQ(intervals.kind, XPlacement::Kind::Linear);  // 40 / 5 < 16
  EXPECT_EQ(intervals.unit, "min");
  EXPECT_EQ(intervals.positions[1], 10);
  EXPECT_EQ(place_values({"0", "8", "16", "256"}).kind, XPlacement::Kind::Linear);  // 0 is not positive
  const auto mixed = place_values({"5min", "1h"});
  EXPECT_EQ(mixed.kind, XPlacement::Kind::Categorical);
  EXPECT_EQ(mixed.positions, (std::vector<double>{0, 1}));
  EXPECT_EQ(place_values({"restart", "hot_spare", "elastic"}).kind, XPlacement::Kind::Categorical);
}

TEST(ParseNumberWithUnit, SplitsTheSuffix)
{
  ASSERT_TRUE(parse_number_with_unit("2.5TB/s"));
  EXPECT_EQ(parse_number_with_unit("2.5TB/s")->unit, "TB/s");
  EXPECT_EQ(parse_number_with_unit("1e3")->value, 1000);
  EXPECT_FALSE(parse_number_with_unit("abc"));
  EXPECT_FALSE(parse_number_with_unit("10min2"));
}

TEST(Downsample, KeepsEveryBucketsMinimumAndMaximum)
{
  std::vector<XY> pts;
  for (int i = 0; i < 16000; ++i)
    pts.push_back({i * 0.01, std::sin(i * 0.37) + (i == 7777 ? 5 : 0) - (i == 12345 ? 7 : 0)});
  const auto out = downsample_min_max(pts, 0, 160, 1000);
  EXPECT_LE(out.size(), 2000u);
  EXPECT_GT(out.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(out.begin(), out.end(), [](const XY& a, const XY& b) { return a.x < b.x; }));
  const auto [lo, hi] = std::minmax_element(out.begin(), out.end(), [](const XY& a, const XY& b) { return a.y < b.y; });
  EXPECT_DOUBLE_EQ(hi->y, pts[7777].y);  // the spikes survive
  EXPECT_DOUBLE_EQ(lo->y, pts[12345].y);
  EXPECT_TRUE(downsample_min_max({}, 0, 1, 10).empty());
}

TEST(HtmlEscape, EscapesMarkupCharacters)
{
  EXPECT_EQ(html_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(html_escape("faulty_gpu"), "faulty_gpu");
}

TEST(Plot, EscapesTextItDraws)
{
  Plot p(100, 50, 10, 10, 10, 10);
  p.text_px(1, 2, "<script>");
  const std::string svg = p.svg("a & b");
  EXPECT_EQ(svg.find("<script>"), std::string::npos);
  EXPECT_NE(svg.find("&lt;script&gt;"), std::string::npos);
  EXPECT_NE(svg.find("aria-label=\"a &amp; b\""), std::string::npos);
}

TEST(FormatNumber, UsesSiSuffixesAndNoExponents)
{
  EXPECT_EQ(format_number(0.96905952, 4), "0.9691");
  EXPECT_EQ(format_number(1.0834906e13, 4), "10.83T");
  EXPECT_EQ(format_number(1.4e11, 2), "140G");
  EXPECT_EQ(format_number(65536, 4), "65.54k");
  EXPECT_EQ(format_tick(0.85, 0.05), "0.85");
  EXPECT_EQ(format_tick(2e12, 2e12), "2T");
  EXPECT_EQ(format_tick(0, 0.1), "0");
  EXPECT_EQ(format_tick(-0.0000001, 0.1), "0.0");
}

TEST(FormatDuration, ReadsInTheUnitOfItsSize)
{
  EXPECT_EQ(format_duration(0), "0 s");
  EXPECT_EQ(format_duration(44.786), "44.8 s");
  EXPECT_EQ(format_duration(180.949), "3.02 min");
  EXPECT_EQ(format_duration(25785.644), "7.16 h");
  EXPECT_EQ(format_duration(3 * 86400), "3 d");
}

TEST(FormatFixed, GroupsThousandsAndPrintsPercentages)
{
  EXPECT_EQ(grouped(11496577.334), "11,496,577");
  EXPECT_EQ(grouped(1234.56, 1), "1,234.6");
  EXPECT_EQ(grouped(-1234567), "-1,234,567");
  EXPECT_EQ(grouped(999), "999");
  EXPECT_EQ(fixed(-0.0001, 2), "0.00");
  EXPECT_EQ(percent(0.727137), "72.7%");
  const auto t = labelled_ticks({0, 0.2, 0.4});
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[1].label, "0.2");
}

TEST(StateColumns, SharesOfEachPixelColumnSumToOne)
{
  const std::vector<StateSegment> segs = {
      {0, 50, "training"}, {50, 55, "checkpoint"}, {55, 80, "training"}, {80, 90, "restart"}, {90, 100, "training"}};
  const StateColumns sc = state_columns(segs, 100, 10);
  EXPECT_EQ(sc.states, (std::vector<std::string>{"training", "checkpoint", "restart"}));
  ASSERT_EQ(sc.share.size(), 10u);
  for (const auto& col : sc.share) {
    double sum = 0;
    for (double f : col)
      sum += f;
    EXPECT_NEAR(sum, 1, 1e-12);
  }
  EXPECT_NEAR(sc.share[5][1], 0.5, 1e-12);  // checkpoint: half of [50, 60)
  EXPECT_NEAR(sc.share[8][2], 1.0, 1e-12);  // restart fills [80, 90)
  EXPECT_EQ(state_columns(segs, 100, 10).share, sc.share);
}

TEST(CsvTable, ReportsTheLineOfAShortRowAndOfABadNumber)
{
  EXPECT_THROW((void)CsvTable::parse("a,b\n1,2\n3\n", "x.csv"), InputError);
  try {
    (void)CsvTable::parse("a,b\n1,2\n3\n", "x.csv");
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "x.csv:3: error: 1 cells where the header has 2");
  }
  const CsvTable t = CsvTable::parse("a,b\n1,zz\n", "y.csv");
  EXPECT_EQ(t.number(0, 0), 1);
  EXPECT_THROW((void)t.number(0, 1), InputError);
  EXPECT_THROW((void)t.column("c"), InputError);
  EXPECT_THROW((void)CsvTable::parse("", "z.csv"), InputError);
}

TEST(StepBins, KeepEachSlicesTimeWeightedMeanAndExtremes)
{
  // 0 until 10, 8 until 11, 2 until 30, 4 until the end (40): slices of 10.
  const auto b = step_bins({0, 10, 11, 30}, {0, 8, 2, 4}, 40, 0, 40, 4);
  ASSERT_EQ(b.size(), 4u);
  EXPECT_NEAR(b[0].mean, 0, 1e-12);
  EXPECT_NEAR(b[1].mean, (8 * 1 + 2 * 9) / 10.0, 1e-12);
  EXPECT_EQ(b[1].max, 8);  // a one-second burst keeps its height
  EXPECT_EQ(b[1].min, 2);
  EXPECT_NEAR(b[2].mean, 2, 1e-12);
  EXPECT_NEAR(b[3].mean, 4, 1e-12);
  EXPECT_NEAR(b[3].covered, 10, 1e-12);
  // A row that holds for no time counts nowhere; a slice before the first row is not covered.
  const auto c = step_bins({15, 15, 20}, {99, 1, 3}, 40, 0, 40, 4);
  EXPECT_EQ(c[0].covered, 0);
  EXPECT_EQ(c[1].max, 1);  // not 99
  EXPECT_NEAR(c[1].covered, 5, 1e-12);
  EXPECT_EQ(c[2].max, 3);
}

TEST(StepBins, OutlineAndEnvelopeFollowTheSlicesAndBreakWhereNoneIsCovered)
{
  // Four 10-pixel columns over [0, 40]; y from 0 (pixel 100) to 10 (pixel 0).
  Plot p(40, 110, 0, 0, 0, 10);
  p.set_scales(Scale::linear(0, 40, 0, 40), Scale::linear(0, 10, 100, 0));
  const auto b = step_bins({0, 10, 11, 30}, {0, 8, 2, 4}, 40, 0, 40, 4);
  EXPECT_EQ(step_outline(p, b, &StepBin::max, 1, false), "M0.0,100.0H10.0V20.0H20.0V80.0H30.0V60.0H40.0");
  EXPECT_EQ(step_outline(p, b, &StepBin::min, 1, true), "M0.0,100.0V100.0H10.0V80.0H30.0V60.0H40.0V100.0Z");
  // Along the highest value left to right, back along the lowest: the burst of column 1 is kept.
  EXPECT_EQ(step_envelope(p, b, 1), "M0.0,100.0H10.0V20.0H20.0V80.0H30.0V60.0H40.0V60.0H30.0V80.0H10.0V100.0H0.0Z");
  const auto c = step_bins({15, 15, 20}, {99, 1, 3}, 40, 0, 40, 4);  // column 0 is not covered
  EXPECT_EQ(step_envelope(p, c, 1), "M10.0,90.0H20.0V70.0H40.0V70.0H20.0V90.0H10.0Z");
  EXPECT_EQ(step_envelope(p, {}, 1), "");
}

TEST(StorageStats, AreTimeWeightedOverTheWindow)
{
  StorageSeries s;
  s.t = {0, 10, 20};
  s.write = {0, 100, 50};
  s.read = {10, 0, 0};
  s.servers = {10, 100, 50};
  s.capacity = {100, 100, 100};
  s.credit = {0, 0, 0};
  s.t_end = 40;
  const StorageStats st = storage_stats(s);
  EXPECT_NEAR(st.mean_write, (100 * 10 + 50 * 20) / 40.0, 1e-9);
  EXPECT_NEAR(st.mean_read, 10 * 10 / 40.0, 1e-9);
  EXPECT_EQ(st.peak_write, 100);
  EXPECT_NEAR(st.saturated_s, 10, 1e-12);
  EXPECT_FALSE(st.has_credit);
  EXPECT_NEAR(quantile({3, 1, 2, 10}, 0.5), 2.5, 1e-12);
  EXPECT_EQ(quantile({3, 1, 2, 10}, 1), 10);
}

}  // namespace

TEST(MetricAt, ReadsABuiltInMetricAtItsDeclaredPathAndNamesThePathWhenMissing)
{
  // allocated_utilisation is declared as summary.json's utilisation.allocated; wait_p99_h as wait_s.p99
  // in hours (simulator/metrics/metric_registry.cpp): the report reads them through that declaration.
  const auto j = nlohmann::ordered_json::parse(R"({"utilisation": {"allocated": 0.75}, "wait_s": {"p99": 7200}})");
  EXPECT_DOUBLE_EQ(fleetsim::report::metric_at(j, "allocated_utilisation", "summary.json"), 0.75);
  EXPECT_DOUBLE_EQ(fleetsim::report::metric_at(j, "wait_p99_h", "summary.json"), 2.0);
  try {
    (void)fleetsim::report::metric_at(j, "productive_utilisation", "summary.json");
    ADD_FAILURE() << "a missing field must be an input error";
  } catch (const fleetsim::report::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("summary.json: error: 'utilisation.productive' is missing"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)fleetsim::report::metric_at(j, "no_such_metric", "summary.json"), std::logic_error);
}
