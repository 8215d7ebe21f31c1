// Black-box tests of the run report's Energy and power section: its figures agree with summary.json's
// "energy" and timeline.csv's power columns, the chart is downsampled, an output directory older than
// the energy model renders without the section, and a malformed value exits 2 with file:line.
#include "fleetsim_process.hpp"
#include "report_section_helpers.hpp"

#include "report/fleet_charts.hpp"
#include "report/svg_chart.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using fleetsim::report::format_duration;
using fleetsim::report::format_number;
using fleetsim::report::grouped;
using fleetsim::report::percent;
using fleetsim::testing::between;
using fleetsim::testing::Csv;
using fleetsim::testing::read_csv;
using fleetsim::testing::read_file;
using fleetsim::testing::run_command;
using fleetsim::testing::shares_of;
using fleetsim::testing::TempDir;
using fleetsim::testing::write_csv;
using Json = nlohmann::ordered_json;

const std::string kBinary = FLEETSIM_BINARY;

fleetsim::testing::ProcessOutput report(const std::string& args)
{
  return run_command(kBinary + " report " + args + " 2>&1");
}

// A Llama 3 replay (analytic step) into tmp/run.
std::string replay(const TempDir& tmp, const std::string& duration)
{
  const std::string dir = tmp / "run";
  const auto r = run_command(kBinary + " run --set run.duration=" + duration +
                             " --set run.step_model=analytic --quiet --out " + dir + " 2>&1");
  EXPECT_EQ(r.code, 0) << r.text;
  return dir;
}

std::string mwh(double v) { return (v >= 1000 ? grouped(v) : format_number(v, 4)) + " MWh"; }

TEST(ReportEnergy, SectionAgreesWithSummaryAndTimelineAndIsDownsampled)
{
  TempDir tmp;
  const std::string dir = replay(tmp, "54d");  // ~16,000 timeline rows
  ASSERT_EQ(report(dir).code, 0);
  const std::string html = read_file(fs::path(dir) / "report.html");
  const std::string section = between(html, "<h2 id=\"energy\">Energy and power</h2>", "<h2>Metrics</h2>");
  ASSERT_FALSE(section.empty());
  EXPECT_EQ(section.find("http"), std::string::npos);
  const Json e = Json::parse(read_file(fs::path(dir) / "summary.json"))["energy"];
  // The chart's peak and lowest are timeline.csv's, over the rows that hold for a positive time.
  const Csv tl = read_csv(fs::path(dir) / "timeline.csv");
  ASSERT_GT(tl.rows.size(), 10000u);
  double peak = 0, low = 1e30;
  for (const auto& r : tl.rows)
    if (std::stod(r[tl.col("t_end_s")]) > std::stod(r[tl.col("t_begin_s")])) {
      peak = std::max(peak, std::stod(r[tl.col("facility_mw")]));
      low = std::min(low, std::stod(r[tl.col("facility_mw")]));
    }
  EXPECT_NEAR(peak, e["peak_mw"]["mw"].get<double>(), 1e-5);
  EXPECT_LT(low, 0.7 * peak);  // checkpoints and restarts draw less
  EXPECT_NE(section.find("(peak " + format_number(peak, 4) + " MW, lowest " + format_number(low, 4) + " MW)"),
            std::string::npos);
  EXPECT_NEAR(std::stod(tl.rows.back()[tl.col("energy_mwh")]), e["facility_mwh"].get<double>(), 1e-3);
  EXPECT_NE(section.find("add up to the facility&#39;s " + mwh(e["facility_mwh"].get<double>())), std::string::npos);
  for (const auto& [label, value] :
       {std::pair{"facility energy", mwh(e["facility_mwh"].get<double>())},
        {"mean power", format_number(e["mean_mw"].get<double>(), 4) + " MW"},
        {"peak power (row mean)", format_number(e["peak_mw"]["mw"].get<double>(), 4) + " MW"},
        {"energy per token", format_number(e["joules_per_token"].get<double>(), 4) + " J"},
        {"swing inside a step", format_number(e["step_swing_mw"].get<double>(), 4) + " MW"},
        {"fastest ramp", format_number(e["fastest_ramp"]["mw_per_s"].get<double>(), 4) + " MW/s"}})
    EXPECT_NE(section.find(std::string(label) + "</div><div class=\"v\">" + value + "<"), std::string::npos) << label;
  // Shares: each component's and phase's MWh over their sum, adding up to 100% (to the rounding).
  for (const auto& [key, cls] :
       {std::pair{"by_component_mwh", "energy-components"}, {"by_phase_mwh", "energy-phases"}}) {
    const auto shares = shares_of(between(section, std::string("<table class=\"") + cls, "</table>"));
    ASSERT_EQ(shares.size(), e[key].size()) << key;
    double sum = 0, total = 0;
    for (const auto& [name, v] : e[key].items())
      total += v.get<double>();
    std::size_t i = 0;
    for (const auto& [name, v] : e[key].items()) {
      EXPECT_EQ(percent(v.get<double>() / total), shares[i]) << name;
      sum += std::stod(shares[i++]);
    }
    EXPECT_NEAR(sum, 100, 0.05 * static_cast<double>(shares.size())) << key;
    EXPECT_NEAR(total, e["facility_mwh"].get<double>(), 1e-6 * total) << key;
  }
  // Swings by cause: every cause with its count, largest swing and when.
  for (const auto& [cause, c] : e["swings"]["by_cause"].items())
    EXPECT_NE(section.find("<tr><td>" + cause + "</td><td>" + grouped(c["count"].get<double>()) + "</td><td>" +
                           format_number(c["max_mw"].get<double>(), 4) + " MW</td><td>" +
                           format_duration(c["t_max_s"].get<double>()) + "</td></tr>"),
              std::string::npos)
        << cause;
  for (std::size_t i = 1; i <= e["swings"]["largest"].size(); ++i)
    EXPECT_NE(section.find("<title>swing " + std::to_string(i) + ": "), std::string::npos) << i;
  // The band and lines hold a few commands per pixel column (1,020), not one per row.
  EXPECT_LT(section.size(), 120000u);
  EXPECT_LT(static_cast<std::size_t>(std::count(section.begin(), section.end(), 'V')), 4 * 1020u);
  ASSERT_EQ(report(dir + " --out " + (tmp / "again.html")).code, 0);
  EXPECT_EQ(read_file(tmp / "again.html"), html);
}

TEST(ReportEnergy, DirectoryWithoutEnergyRendersWithoutTheSection)
{
  TempDir tmp;
  const std::string dir = replay(tmp, "2d");
  const Csv tl = read_csv(fs::path(dir) / "timeline.csv");
  ASSERT_EQ(tl.header.back(), "carbon_kg");
  Json summary = Json::parse(read_file(fs::path(dir) / "summary.json"));
  const std::string with_energy = summary.dump(1);
  summary.erase("energy");
  tmp.write("run/summary.json", summary.dump(1));
  tmp.write("run/timeline.csv", write_csv(tl, tl.header.size() - 4));  // as before the energy model
  auto r = report(dir);
  ASSERT_EQ(r.code, 0) << r.text;
  std::string html = read_file(fs::path(dir) / "report.html");
  EXPECT_EQ(html.find("Energy and power"), std::string::npos);
  for (const char* s : {"<h2>Where the time went</h2>", "<h2>Checkpoints</h2>", "<h2>Metrics</h2>"})
    EXPECT_NE(html.find(s), std::string::npos) << s;
  // One without the other is a malformed directory.
  fs::remove(fs::path(dir) / "report.html");
  tmp.write("run/summary.json", with_energy);
  r = report(dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("timeline.csv:1: error: no column 'it_mw' in the header"), std::string::npos) << r.text;
  tmp.write("run/summary.json", summary.dump(1));
  tmp.write("run/timeline.csv", write_csv(tl, tl.header.size()));
  r = report(dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("summary.json: error: 'energy' is missing"), std::string::npos) << r.text;
  EXPECT_FALSE(fs::exists(fs::path(dir) / "report.html"));
}

TEST(ReportEnergy, MalformedEnergyValuesExitTwoWithTheFileAndLine)
{
  TempDir tmp;
  const std::string dir = replay(tmp, "1d");
  fleetsim::testing::BrokenDir broken(dir);
  ASSERT_GT(broken.timeline().rows.size(), 10u);
  broken.cell(4, "facility_mw", "high");  // row 4 is line 6
  broken.expect_error("timeline.csv:6: error: column 'facility_mw' is not a number: 'high'");
  broken.cell(4, "it_mw", "-1.0");
  broken.expect_error("timeline.csv:6: error: column 'it_mw' is negative");
  broken.cell(7, "energy_mwh", "0.000001");
  broken.expect_error("timeline.csv:9: error: column 'energy_mwh' decreases");
  broken.summary([](Json& j) { j["energy"]["peak_mw"]["mw"] = "high"; });
  broken.expect_error("summary.json: error: 'energy.peak_mw.mw' is not a number");
  broken.summary([](Json& j) { j["energy"]["by_component_mwh"]["node"] = -3; });
  broken.expect_error("summary.json: error: 'energy.by_component_mwh.node' is negative");
  broken.summary([](Json& j) { j["energy"]["swings"]["largest"][0].erase("cause"); });
  broken.expect_error("summary.json: error: 'energy.swings.largest[0].cause' is missing");
  // Unknown keys (an object of a later version, say) are ignored.
  broken.summary([](Json& j) { j["energy"]["later"] = {{"tonnes_co2", 12.5}}; });
  const auto r = report(dir);
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_NE(read_file(fs::path(dir) / "report.html").find("<h2 id=\"energy\">Energy and power</h2>"),
            std::string::npos);
}

}  // namespace
