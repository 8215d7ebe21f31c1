// Black-box tests of the replay's energy (docs/models/energy.md): summary.json and timeline.csv agree
// with each other, the power floor's cost is exactly its component, the shipped power-cap sweep trades
// throughput for power, and bad power input is refused with its key.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using fleetsim::testing::column_of;
using fleetsim::testing::csv_cells;
using fleetsim::testing::fleetsim_command;
using fleetsim::testing::lines_of;
using fleetsim::testing::read_file;
using fleetsim::testing::TempDir;

const std::string kLlama = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/llama3_405b_16k.yaml";
// Five days of the Llama 3 replay on the analytic step: a few hundred rows, every phase.
const std::string kShort = kLlama + " --set run.duration=5d --set run.step_model=analytic --quiet";

nlohmann::json run_summary(const std::string& out, const std::string& extra = "")
{
  const auto r = fleetsim_command("run " + kShort + " --out " + out + " " + extra);
  EXPECT_EQ(r.code, 0) << r.text;
  return nlohmann::json::parse(read_file(fs::path(out) / "summary.json"));
}

TEST(CliEnergy, TheSummaryAndTheTimelineTellTheSameEnergy)
{
  TempDir tmp;
  const auto j = run_summary(tmp / "a");
  const auto& e = j["energy"];
  const auto rows = lines_of(read_file(tmp.path() / "a" / "timeline.csv"));
  ASSERT_GT(rows.size(), 10u);
  const auto header = csv_cells(rows[0]);
  const auto col = [&](const char* name) { return column_of(header, name); };
  ASSERT_LT(col("energy_mwh"), header.size());
  double mwh = 0;
  double peak = 0;
  // The CSV prints six decimals: summing its rows carries each row's rounding (half a unit of the
  // power's last digit over the row, and of the times'), plus the printed total's own.
  double rounding = 5e-7;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto c = csv_cells(rows[i]);
    const double dt = std::stod(c[col("t_end_s")]) - std::stod(c[col("t_begin_s")]);
    const double it = std::stod(c[col("it_mw")]);
    const double facility = std::stod(c[col("facility_mw")]);
    EXPECT_NEAR(facility, it * e["pue"].get<double>(), 2e-6) << rows[i];
    mwh += facility * dt / 3600;
    rounding += (5e-7 * dt + 1e-6 * facility) / 3600;
    peak = std::max(peak, facility);
    EXPECT_NEAR(std::stod(c[col("energy_mwh")]), mwh, rounding + 1e-9 * mwh) << "row " << i;
  }
  EXPECT_NEAR(e["facility_mwh"].get<double>(), mwh, rounding + 1e-9 * mwh);
  EXPECT_NEAR(e["peak_mw"]["mw"].get<double>(), peak, 1e-6);
  double components = 0;
  for (const auto& [name, v] : e["by_component_mwh"].items())
    components += v.get<double>();
  double phases = 0;
  for (const auto& [name, v] : e["by_phase_mwh"].items())
    phases += v.get<double>();
  EXPECT_NEAR(components, mwh, 1e-6 * mwh);
  EXPECT_NEAR(phases, mwh, 1e-6 * mwh);
  EXPECT_NEAR(e["mean_mw"].get<double>(), mwh * 3600 / j["simulated_time_s"].get<double>(), 1e-9 * mwh);
  EXPECT_NEAR(e["joules_per_token"].get<double>(), mwh * 3.6e9 / j["tokens_trained"].get<double>(), 1e-9 * mwh);
  // Failures and checkpoints both swing the facility; the largest swing is the first listed.
  EXPECT_GT(e["swings"]["by_cause"]["failure"]["count"].get<long>(), 0);
  EXPECT_GT(e["swings"]["by_cause"]["checkpoint"]["count"].get<long>(), 0);
  EXPECT_GT(e["step_swing_mw"].get<double>(), 1.0);  // 16,384 GPUs between compute and communicate
}

TEST(CliEnergy, APowerFloorShrinksTheStepSwingAndCostsExactlyItsOwnEnergy)
{
  TempDir tmp;
  const auto free = run_summary(tmp / "free");
  const auto floored = run_summary(tmp / "floor", "--set power.floor=500W");
  EXPECT_EQ(floored["ettr"], free["ettr"]);  // the floor changes power, not the run
  const auto& a = free["energy"];
  const auto& b = floored["energy"];
  EXPECT_NEAR(b["step_swing_mw"].get<double>(), a["step_swing_mw"].get<double>() * (700 - 500) / (700 - 350), 1e-9);
  const double floor_mwh = b["by_component_mwh"]["power_floor"].get<double>();
  EXPECT_GT(floor_mwh, 0);
  EXPECT_NEAR(b["facility_mwh"].get<double>() - a["facility_mwh"].get<double>(), floor_mwh * b["pue"].get<double>(),
              1e-6 * floor_mwh);
  EXPECT_LT(b["swings"]["by_cause"]["checkpoint"]["max_mw"].get<double>(),
            a["swings"]["by_cause"]["checkpoint"]["max_mw"].get<double>());
}

TEST(CliEnergy, AStaggeredRestartSlowsTheRestartRampAndCostsWarmupTime)
{
  TempDir tmp;
  const auto at_once = run_summary(tmp / "once");
  const auto staggered = run_summary(tmp / "stagger", "--set power.restart_stagger=60s");
  const auto& a = at_once["energy"]["swings"]["by_cause"]["restart"];
  const auto& b = staggered["energy"]["swings"]["by_cause"]["restart"];
  ASSERT_GT(b["count"].get<long>(), 0);
  EXPECT_NEAR(b["max_ramp_mw_per_s"].get<double>(), b["max_mw"].get<double>() / 60, 1e-9);
  EXPECT_NEAR(a["max_ramp_mw_per_s"].get<double>(), a["max_mw"].get<double>() / 0.1, 1e-6);
  // Each recovery's warmup grows by the stagger (less when a failure cuts it): training time lost.
  const double extra = staggered["time_breakdown_s"]["warmup"].get<double>() -
                       at_once["time_breakdown_s"]["warmup"].get<double>();
  EXPECT_GT(extra, 0);
  EXPECT_LE(extra, 60.0 * staggered["interruptions"]["unexpected"].get<double>() + 1e-6);
  EXPECT_LT(staggered["ettr"].get<double>(), at_once["ettr"].get<double>());
  EXPECT_EQ(staggered["energy"]["restart_stagger_s"].get<double>(), 60);
}

TEST(CliEnergy, TheShippedPowerCapSweepTradesThroughputForPower)
{
  TempDir tmp;
  const std::string sweep = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/sweeps/llama3_power_cap.yaml";
  const auto r = fleetsim_command("sweep " + sweep + " --replicas 1 -j 2 --quiet --out " + (tmp / "s") +
                                  " --set run.duration=5d --set run.step_model=analytic");
  ASSERT_EQ(r.code, 0) << r.text;
  const auto rows = lines_of(read_file(tmp.path() / "s" / "results.csv"));
  ASSERT_EQ(rows.size(), 10u);  // header + 9 caps, from 700 W down
  const auto header = csv_cells(rows[0]);
  const auto col = [&](const std::string& name) { return column_of(header, name + "_mean"); };
  std::vector<double> step;
  std::vector<double> power;
  std::vector<double> per_token;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto c = csv_cells(rows[i]);
    step.push_back(std::stod(c[col("step_time_s")]));
    power.push_back(std::stod(c[col("mean_power_mw")]));
    per_token.push_back(std::stod(c[col("energy_per_token_j")]));
  }
  for (size_t i = 1; i < step.size(); ++i) {
    EXPECT_GT(step[i], step[i - 1]) << "a lower cap slows the step";
    EXPECT_LT(power[i], power[i - 1]) << "and lowers the power";
  }
  // Energy per token is lowest inside the range: a little cap saves energy, a deep one loses it to the
  // draw that does not scale with the cap (nodes, storage, idle GPUs) over the longer run.
  const auto best = std::min_element(per_token.begin(), per_token.end()) - per_token.begin();
  EXPECT_GT(best, 0);
  EXPECT_LT(best, static_cast<long>(per_token.size()) - 1);
}

TEST(CliEnergy, CarbonFollowsTheGridProfileAndTheEmbodiedShareOfTheWindow)
{
  TempDir tmp;
  const auto j = run_summary(tmp / "c",
                             "--set power.carbon.intensity=carbon/solar_heavy_grid.csv --set "
                             "power.embodied.gpu_kg=150 --set power.embodied.node_kg=2500");
  const auto& c = j["energy"]["carbon"];
  const auto rows = lines_of(read_file(tmp.path() / "c" / "timeline.csv"));
  const auto last = csv_cells(rows.back());
  EXPECT_NEAR(std::stod(last.back()), c["operational_t"].get<double>() * 1000, 1e-3);
  // The mean intensity the run saw lies inside the profile's range.
  double lo = 1e9;
  double hi = 0;
  for (const auto& line :
       lines_of(read_file(fs::path(FLEETSIM_SOURCE_DIR) / "scenarios/carbon/solar_heavy_grid.csv"))) {
    if (line.empty() || line[0] == '#' || line.rfind("hour", 0) == 0)
      continue;
    const double g = std::stod(csv_cells(line)[1]);
    lo = std::min(lo, g);
    hi = std::max(hi, g);
  }
  EXPECT_GT(c["mean_intensity_g_per_kwh"].get<double>(), lo);
  EXPECT_LT(c["mean_intensity_g_per_kwh"].get<double>(), hi);
  // 16,384 GPUs and 2,048 nodes over 5 of the 2,190 days of their life.
  EXPECT_NEAR(c["embodied_t"].get<double>(), (150.0 * 16384 + 2500.0 * 2048) * 5 / 2190 / 1000, 1e-9);
  EXPECT_NEAR(c["total_t"].get<double>(), c["operational_t"].get<double>() + c["embodied_t"].get<double>(), 1e-9);
}

// A fleet job given as hours at full speed computes for power.fleet_compute_fraction (0.7) of them:
// under a 500 W limit that part runs at ((500 - 100) / (700 - 100))^(1/3) of full speed.
TEST(CliEnergy, APowerLimitStretchesAFleetJobsComputeAlongTheDvfsCurve)
{
  TempDir tmp;
  const std::string fleet = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/fleet_carbon_aware.yaml --quiet";
  auto run_time = [&](const std::string& dir, const std::string& extra) {
    const auto r = fleetsim_command("run " + fleet + " --out " + (tmp / dir) + " " + extra);
    EXPECT_EQ(r.code, 0) << r.text;
    for (const auto& line : lines_of(read_file(tmp.path() / dir / "jobs.csv")))
      if (line.rfind("research-1,", 0) == 0) {
        const auto c = csv_cells(line);
        return std::stod(c[4]) - std::stod(c[3]);  // end_s - start_s: 2 h of work and a 2 min start
      }
    ADD_FAILURE() << "no research-1 in " << dir;
    return 0.0;
  };
  const double free = run_time("free", "");
  const double capped = run_time("capped", "--set power.gpu_power_limit=500W");
  const double speed = std::cbrt(400.0 / 600.0);
  EXPECT_NEAR(capped - free, 7200 * (0.7 / speed + 0.3 - 1), 1e-3);
}

TEST(CliEnergy, RefusesImpossiblePowerInputWithItsKey)
{
  const std::pair<const char*, const char*> cases[] = {
      {"--set power.gpu.idle=800W", "power.gpu.idle"},
      {"--set power.gpu_power_limit=50W", "power.gpu_power_limit"},
      {"--set power.gpu_power_limit=400W --set power.floor=450W", "power.floor"},
      {"--set power.pue=0.9", "power.pue"},
  };
  for (const auto& [args, key] : cases) {
    TempDir tmp;
    const auto r = fleetsim_command("run " + kShort + " --out " + (tmp / "x") + " " + args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.text;
    EXPECT_NE(r.text.find(key), std::string::npos) << r.text;
    EXPECT_FALSE(fs::exists(tmp.path() / "x" / "summary.json"));
  }
}

}  // namespace
