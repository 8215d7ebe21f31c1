// Black-box tests of the fleet report's Energy and power section: its figures agree with summary.json's
// "energy" and "carbon_aware" and with timeline.csv's power columns, the page is deterministic and
// self-contained, a fleet directory older than the energy model renders without the section, and a
// malformed value exits 2 with file:line.
#include "fleetsim_process.hpp"
#include "report_section_helpers.hpp"

#include "report/fleet_charts.hpp"
#include "report/svg_chart.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
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
const std::string kHeading = "<h2 id=\"energy\">Energy and power</h2>";

fleetsim::testing::ProcessOutput report(const std::string& args)
{
  return run_command(kBinary + " report " + args + " 2>&1");
}

// The carbon-aware example (a week of 1,536 GPUs on a solar-heavy grid) into tmp/fleet.
std::string carbon_aware_fleet(const TempDir& tmp)
{
  const std::string dir = tmp / "fleet";
  const auto r = run_command(kBinary + " run " + FLEETSIM_SOURCE_DIR +
                             "/scenarios/fleet_carbon_aware.yaml --quiet --out " + dir + " 2>&1");
  EXPECT_EQ(r.code, 0) << r.text;
  return dir;
}

std::string mwh(double v) { return (v >= 1000 ? grouped(v) : format_number(v, 4)) + " MWh"; }
std::string tonnes(double t) { return format_number(t, 4) + " t CO2e"; }
std::string figure(const std::string& label, const std::string& value)
{
  return label + "</div><div class=\"v\">" + value + "<";
}
std::string row(const std::string& label, const std::string& value)
{
  return "<tr><td>" + label + "</td><td>" + value + "</td></tr>";
}

TEST(ReportFleetEnergy, SectionAgreesWithSummaryAndTimeline)
{
  TempDir tmp;
  const std::string dir = carbon_aware_fleet(tmp);
  const auto r = report(dir);
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string html = read_file(fs::path(dir) / "report.html");
  const std::string section = between(html, kHeading, "<h2>Jobs that lost the most GPU-hours</h2>");
  ASSERT_FALSE(section.empty());
  EXPECT_EQ(html.find("http"), std::string::npos);  // self-contained
  const Json summary = Json::parse(read_file(fs::path(dir) / "summary.json"));
  const Json& e = summary["energy"];
  // The peak is timeline.csv's highest facility_mw; its last energy_mwh and carbon_kg are the totals.
  const Csv tl = read_csv(fs::path(dir) / "timeline.csv");
  ASSERT_GT(tl.rows.size(), 100u);
  double peak = 0;
  for (const auto& cells : tl.rows)
    peak = std::max(peak, std::stod(cells[tl.col("facility_mw")]));
  EXPECT_NEAR(peak, e["peak_mw"]["mw"].get<double>(), 1e-6);
  EXPECT_NE(section.find("ring: the peak row, " + format_number(peak, 4) + " MW"), std::string::npos);
  EXPECT_NEAR(std::stod(tl.rows.back()[tl.col("energy_mwh")]), e["facility_mwh"].get<double>(), 1e-3);
  EXPECT_NEAR(std::stod(tl.rows.back()[tl.col("carbon_kg")]) / 1000, e["carbon"]["operational_t"].get<double>(), 1e-3);
  EXPECT_NE(section.find("add up to the facility&#39;s " + mwh(e["facility_mwh"].get<double>())), std::string::npos);
  EXPECT_NE(section.find("<h3>Cumulative operational carbon</h3>"), std::string::npos);
  const Json& c = e["carbon"];
  for (const auto& [label, value] :
       {std::pair{"facility energy", mwh(e["facility_mwh"].get<double>())},
        {"IT energy", mwh(e["it_mwh"].get<double>())},
        {"mean power", format_number(e["mean_mw"].get<double>(), 4) + " MW"},
        {"peak power (row mean)", format_number(peak, 4) + " MW"},
        {"peak at", format_duration(e["peak_mw"]["t_s"].get<double>())},
        {"operational carbon", tonnes(c["operational_t"].get<double>())},
        {"mean grid intensity", format_number(c["mean_intensity_g_per_kwh"].get<double>(), 4) + " g/kWh"},
        {"embodied carbon", tonnes(c["embodied_t"].get<double>())},
        {"total carbon", tonnes(c["total_t"].get<double>())}})
    EXPECT_NE(section.find(figure(label, value)), std::string::npos) << label;
  // The components that drew power, each with its share of their sum; the shares add up to 100%.
  const auto shares = shares_of(between(section, "<table class=\"energy-components\"", "</table>"));
  double total = 0, sum = 0;
  std::vector<std::pair<std::string, double>> drew;
  for (const auto& [name, v] : e["by_component_mwh"].items()) {
    total += v.get<double>();
    if (v.get<double>() > 0)
      drew.emplace_back(name, v.get<double>());
  }
  ASSERT_EQ(shares.size(), drew.size());
  ASSERT_GE(drew.size(), 4u);
  for (std::size_t i = 0; i < drew.size(); ++i) {
    EXPECT_EQ(percent(drew[i].second / total), shares[i]) << drew[i].first;
    sum += std::stod(shares[i]);
  }
  EXPECT_NEAR(sum, 100, 0.05 * static_cast<double>(shares.size()));
  EXPECT_NEAR(total, e["facility_mwh"].get<double>(), 1e-5 * total);
  // The deferrable jobs' table is summary.json's carbon_aware.
  const Json& a = summary["carbon_aware"];
  ASSERT_GT(a["deferred_jobs"].get<double>(), 0);
  const std::string t = between(section, "<table class=\"energy-carbon-aware\"", "</table>");
  for (const std::string& expected :
       {row("deferrable jobs", grouped(a["deferrable_jobs"].get<double>())),
        row("deferred (eligible after their submission)", grouped(a["deferred_jobs"].get<double>())),
        row("mean deferral (submission to eligible)", format_duration(a["deferral_s"]["mean"].get<double>())),
        row("mean queueing after eligibility", format_duration(a["queue_after_eligible_s"]["mean"].get<double>())),
        row("their energy", mwh(a["energy_mwh"].get<double>())),
        row("their operational carbon", tonnes(a["carbon_t"].get<double>())),
        row("their mean grid intensity",
            format_number(a["mean_intensity_g_per_kwh"].get<double>(), 4) + " g/kWh (the fleet&#39;s: " +
                format_number(c["mean_intensity_g_per_kwh"].get<double>(), 4) + " g/kWh)")})
    EXPECT_NE(t.find(expected), std::string::npos) << expected;
  // Deterministic: the same directory gives the same bytes.
  ASSERT_EQ(report(dir + " --out " + (tmp / "again.html")).code, 0);
  EXPECT_EQ(read_file(tmp / "again.html"), html);
}

TEST(ReportFleetEnergy, FleetDirectoryWithoutEnergyRendersWithoutTheSection)
{
  TempDir tmp;
  const std::string dir = carbon_aware_fleet(tmp);
  const Csv tl = read_csv(fs::path(dir) / "timeline.csv");
  Json summary = Json::parse(read_file(fs::path(dir) / "summary.json"));
  const std::string with_energy = summary.dump(1);
  summary.erase("energy");
  summary.erase("carbon_aware");
  tmp.write("fleet/summary.json", summary.dump(1));
  tmp.write("fleet/timeline.csv", write_csv(tl, tl.col("gpu_compute_mw")));  // as before the energy model
  auto r = report(dir);
  ASSERT_EQ(r.code, 0) << r.text;
  const std::string html = read_file(fs::path(dir) / "report.html");
  EXPECT_EQ(html.find("Energy and power"), std::string::npos);
  for (const char* s : {"<h2>Utilisation over time</h2>", "<h2>Wait time by job size</h2>", "<h2>More figures</h2>"})
    EXPECT_NE(html.find(s), std::string::npos) << s;
  // One without the other is a malformed directory.
  fs::remove(fs::path(dir) / "report.html");
  tmp.write("fleet/summary.json", with_energy);
  r = report(dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.text.find("timeline.csv:1: error: no column 'it_mw' in the header"), std::string::npos) << r.text;
  EXPECT_FALSE(fs::exists(fs::path(dir) / "report.html"));
}

TEST(ReportFleetEnergy, MalformedEnergyValuesExitTwoWithTheFileAndLine)
{
  TempDir tmp;
  fleetsim::testing::BrokenDir broken(carbon_aware_fleet(tmp));
  broken.cell(4, "node_mw", "lots");  // row 4 is line 6
  broken.expect_error("timeline.csv:6: error: column 'node_mw' is not a number: 'lots'");
  broken.cell(4, "gpu_idle_mw", "-0.5");
  broken.expect_error("timeline.csv:6: error: column 'gpu_idle_mw' is negative");
  broken.cell(7, "carbon_kg", "1.0");
  broken.expect_error("timeline.csv:9: error: column 'carbon_kg' decreases");
  broken.summary([](Json& j) { j["energy"]["peak_mw"]["mw"] = "high"; });
  broken.expect_error("summary.json: error: 'energy.peak_mw.mw' is not a number");
  broken.summary([](Json& j) { j["energy"]["carbon"].erase("embodied_t"); });
  broken.expect_error("summary.json: error: 'energy.carbon.embodied_t' is missing");
  broken.summary([](Json& j) { j["carbon_aware"]["deferral_s"]["mean"] = nullptr; });
  broken.expect_error("summary.json: error: 'carbon_aware.deferral_s.mean' is not a number");
}

}  // namespace
