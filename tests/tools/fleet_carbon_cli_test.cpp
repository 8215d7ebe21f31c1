// A fleet's energy and carbon through the fleetsim binary: the shipped carbon-aware scenario with
// and without carbon awareness, the timeline's power columns, determinism, and the carbon keys' errors.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace {

using fleetsim::testing::fleetsim_command;
using fleetsim::testing::read_file;
using fleetsim::testing::TempDir;

const std::string kScenario = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/fleet_carbon_aware.yaml";

nlohmann::json run_summary(const TempDir& dir, const std::string& out, const std::string& sets = "")
{
  const auto r = fleetsim_command("run " + kScenario + " " + sets + " --quiet --out " + (dir / out));
  EXPECT_EQ(r.code, 0) << r.text;
  return r.code == 0 ? nlohmann::json::parse(read_file(dir / (out + "/summary.json"))) : nlohmann::json();
}

std::vector<std::vector<std::string>> csv(const std::string& text)
{
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    for (std::stringstream s(line); std::getline(s, line, ',');)
      cells.push_back(line);
    rows.push_back(cells);
  }
  return rows;
}

size_t column(const std::vector<std::string>& header, const std::string& name)
{
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name)
      return i;
  ADD_FAILURE() << "no column " << name;
  return 0;
}

}  // namespace

TEST(FleetCarbonCli, CarbonAwareSchedulingEmitsLessForTheDeferrableJobsAndPaysADelay)
{
  TempDir dir;
  const nlohmann::json aware = run_summary(dir, "aware");
  const nlohmann::json unaware = run_summary(dir, "unaware", "--set scheduler.carbon_aware=false");
  ASSERT_FALSE(aware.is_null());
  ASSERT_FALSE(unaware.is_null());
  const auto& a = aware["carbon_aware"];
  const auto& u = unaware["carbon_aware"];
  EXPECT_TRUE(a["enabled"].get<bool>());
  EXPECT_FALSE(u["enabled"].get<bool>());
  EXPECT_EQ(a["deferrable_jobs"], u["deferrable_jobs"]);
  EXPECT_EQ(a["deferred_at_end"], 0);  // the comparison is over the same jobs, all of which ran
  // The same work at the same draw: the same energy, on a cleaner grid.
  EXPECT_NEAR(a["energy_mwh"].get<double>(), u["energy_mwh"].get<double>(), 1e-6);
  EXPECT_LT(a["carbon_t"].get<double>(), 0.8 * u["carbon_t"].get<double>());
  EXPECT_LT(a["mean_intensity_g_per_kwh"].get<double>(), u["mean_intensity_g_per_kwh"].get<double>());
  // The delay paid: deferral, and start after submit at least as long.
  EXPECT_GT(a["deferred_jobs"].get<long>(), 0);
  EXPECT_GT(a["deferral_s"]["mean"].get<double>(), 3600);
  EXPECT_GE(a["submit_to_start_s"]["total"].get<double>(), a["deferral_s"]["total"].get<double>());
  EXPECT_EQ(u["submit_to_start_s"]["total"].get<double>(), 0);
  // The whole fleet emits less too, though less than the deferrable jobs save: idle GPUs fill the hours they left.
  const double saved_jobs = u["carbon_t"].get<double>() - a["carbon_t"].get<double>();
  const double saved_fleet = unaware["energy"]["carbon"]["operational_t"].get<double>() -
                             aware["energy"]["carbon"]["operational_t"].get<double>();
  EXPECT_GT(saved_fleet, 0);
  EXPECT_LT(saved_fleet, saved_jobs);
}

TEST(FleetCarbonCli, TimelinePowerColumnsAddUpAndTheEnergyIsCumulative)
{
  TempDir dir;
  const nlohmann::json s = run_summary(dir, "out");
  ASSERT_FALSE(s.is_null());
  const auto rows = csv(read_file(dir / "out/timeline.csv"));
  ASSERT_GT(rows.size(), 100u);
  const auto& h = rows[0];
  const std::vector<std::string> parts = {"gpu_compute_mw", "gpu_communicate_mw", "gpu_idle_mw", "gpu_checkpoint_mw",
                                          "gpu_off_mw",     "power_floor_mw",     "node_mw",     "network_mw",
                                          "storage_mw",     "overhead_mw"};
  double energy = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    double sum = 0;
    for (const auto& p : parts)
      sum += std::stod(rows[i][column(h, p)]);
    const double facility = std::stod(rows[i][column(h, "facility_mw")]);
    EXPECT_NEAR(sum, facility, 1e-5) << "row " << i;  // 6 decimals each
    const double hours = (std::stod(rows[i][column(h, "t_end_s")]) - std::stod(rows[i][column(h, "t_begin_s")])) / 3600;
    energy += facility * hours;
    EXPECT_NEAR(std::stod(rows[i][column(h, "energy_mwh")]), energy, 1e-4) << "row " << i;
  }
  EXPECT_NEAR(s["energy"]["facility_mwh"].get<double>(), energy, 1e-3);
  EXPECT_NEAR(std::stod(rows.back()[column(h, "carbon_kg")]) / 1e3,
              s["energy"]["carbon"]["operational_t"].get<double>(), 1e-5);
}

TEST(FleetCarbonCli, TheSameSeedGivesTheSameBytes)
{
  TempDir dir;
  run_summary(dir, "a");
  run_summary(dir, "b");
  for (const char* f : {"/jobs.csv", "/timeline.csv"})
    EXPECT_EQ(read_file(dir / (std::string("a") + f)), read_file(dir / (std::string("b") + f))) << f;
}

TEST(FleetCarbonCli, ABadProfileRowIsAnErrorAtItsLineOfTheCsv)
{
  TempDir dir;
  dir.write("grid.csv", "hour,gco2_per_kwh\n0,100\n1,100\n3,100\n");
  const std::string scenario = dir.write("s.yaml", R"(name: bad_profile
cluster: {gpus: 16, gpus_per_node: 8, gpus_per_rack: 16}
power: {carbon: {intensity: grid.csv}}
workload: {jobs: {a: {gpus: 8, work: 1h, deferrable: 2h}}}
scheduler: {carbon_aware: true}
run: {duration: 1d, step_model: analytic}
)");
  const auto r = fleetsim_command("run " + scenario + " --quiet --out " + (dir / "out"));
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("grid.csv:4: error: power.carbon.intensity: hour 3 where hour 2 was expected"),
            std::string::npos)
      << r.text;
}

TEST(FleetCarbonCli, CarbonAwareWithoutAProfileIsAnError)
{
  TempDir dir;
  const std::string scenario = dir.write("s.yaml", R"(name: no_profile
cluster: {gpus: 16, gpus_per_node: 8, gpus_per_rack: 16}
workload: {jobs: {a: {gpus: 8, work: 1h, deferrable: 2h}}}
scheduler: {carbon_aware: true}
run: {duration: 1d, step_model: analytic}
)");
  const auto r = fleetsim_command("run " + scenario + " --quiet --out " + (dir / "out"));
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("s.yaml:4:"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("scheduler.carbon_aware needs the grid's carbon intensity"), std::string::npos) << r.text;
  const auto missing = fleetsim_command("run " + scenario + " --set power.carbon.intensity=nowhere.csv --quiet");
  EXPECT_EQ(missing.code, 2) << missing.text;
  EXPECT_NE(missing.text.find("power.carbon.intensity: cannot read"), std::string::npos) << missing.text;
}
