// Extension points, used as a developer outside the simulator's sources would: this file alone
// defines a recovery policy with a scenario key of its own and an output metric, registers them, and
// runs them end to end through
// the real command line (this executable is the whole fleetsim CLI when its first argument is
// --as-fleetsim; tests/CMakeLists.txt links it like build/fleetsim). Nothing in models/,
// simulator/ or tools/ knows about either.
#include "fleetsim_process.hpp"

#include "cli/commands.hpp"
#include "models/resilience/recovery_policy.hpp"
#include "simulator/metrics/metric_registry.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;
using fleetsim::testing::lines_of;
using fleetsim::testing::read_file;
using fleetsim::testing::run_command;
using fleetsim::testing::TempDir;

// ---- the extensions ----------------------------------------------------------------------------------

// A rigid policy whose restart phase takes recovery.test_restart_time (1 s unless the scenario says
// otherwise) whatever recovery.restart says (an idealised "instant rescheduling" design), and which
// reports how many recoveries it ran.
class InstantRestartPolicy final : public fleetsim::models::RecoveryPolicy {
public:
  [[nodiscard]] double restart_seconds(const fleetsim::models::RecoverySpec& spec) const override
  {
    return spec.extension_value("recovery.test_restart_time");
  }
  [[nodiscard]] std::vector<std::pair<std::string, long>> reported(
      const fleetsim::models::PolicyCounters& c) const override
  {
    return {{"instant_restarts", c.storage_restores + c.memory_restores}};
  }
};

// Committed checkpoints per simulated day.
std::optional<double> checkpoints_per_day(const fleetsim::metrics::RunFacts& run)
{
  if (!(run.report.elapsed > 0))
    return std::nullopt;
  return static_cast<double>(run.report.checkpoints) / (run.report.elapsed / 86400);
}

// A fleet's share of its allocated GPU-time that was lost (checkpoints, start-ups, failures, ...).
std::optional<double> lost_share(const fleetsim::metrics::FleetFacts& fleet)
{
  if (!(fleet.total.allocated > 0))
    return std::nullopt;
  return fleet.total.lost_total() / fleet.total.allocated;
}

// The policy's entry declares its key: a duration with its default and range, which the loader
// reads, checks and lists like every key, and stores in RecoverySpec::extension.
const bool kRegistered = fleetsim::models::register_recovery_policy(
                             {"test_instant_restart",
                              "a short restart phase (tests/tools/extension_test.cpp)",
                              [] { return std::make_unique<InstantRestartPolicy>(); },
                              {fleetsim::models::extension_key<fleetsim::models::RecoverySpec>(
                                  "recovery.test_restart_time", fleetsim::models::KeyKind::Duration, "1s",
                                  "test_instant_restart: the restart phase (replaces recovery.restart)", 0.0, 3600.0)},
                              /*replaces_restart=*/true}) &&
                         fleetsim::metrics::register_metric({"test_checkpoints_per_day", "1/d",
                                                             "committed checkpoints per simulated day", nullptr,
                                                             checkpoints_per_day, nullptr, "", 1}) &&
                         fleetsim::metrics::register_metric({"test_lost_share", "",
                                                             "share of the allocated GPU-time of a fleet that was lost", nullptr,
                                                             nullptr, lost_share, "", 1});

// ---- running them --------------------------------------------------------------------------------------

std::string self_path() { return fs::canonical("/proc/self/exe").string(); }

const std::string kScenario = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/young_daly_single_cause.yaml";

fleetsim::testing::ProcessOutput fleetsim(const std::string& args)
{
  return run_command(self_path() + " --as-fleetsim " + args + " 2>&1");
}

nlohmann::json summary_of(const std::string& dir)
{
  return nlohmann::json::parse(read_file(fs::path(dir) / "summary.json"));
}

std::vector<std::string> cells(const std::string& row)
{
  std::vector<std::string> out;
  std::stringstream ss(row);
  for (std::string c; std::getline(ss, c, ',');)
    out.push_back(c);
  return out;
}

size_t column(const std::vector<std::string>& header, const std::string& name)
{
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name)
      return i;
  return header.size();
}

TEST(Extensions, AreRegistered)
{
  ASSERT_TRUE(kRegistered);
  EXPECT_NE(fleetsim::models::find_recovery_policy("test_instant_restart"), nullptr);
  EXPECT_NE(fleetsim::metrics::find_metric("test_checkpoints_per_day"), nullptr);
  EXPECT_FALSE(fleetsim::models::register_recovery_policy({"restart", "", nullptr})) << "names are unique";
}

TEST(Extensions, ThePolicyDrivesARunAndTheMetricIsInItsSummaryAndReport)
{
  TempDir tmp;
  const std::string common = kScenario + " --set run.duration=3d --seed 3 --quiet --out ";
  const auto mine = fleetsim("run " + common + (tmp / "mine") + " --set recovery.policy=test_instant_restart");
  const auto base = fleetsim("run " + common + (tmp / "base"));
  ASSERT_EQ(mine.code, 0) << mine.text;
  ASSERT_EQ(base.code, 0) << base.text;
  const auto m = summary_of(tmp / "mine");
  const auto b = summary_of(tmp / "base");
  // The same failures (same seed, same causes), recovered with a 1 s restart instead of 4 min.
  const long failures = m["interruptions"]["unexpected"].get<long>();
  ASSERT_GT(failures, 10);
  EXPECT_EQ(m["recovery"]["policy"], "test_instant_restart");
  EXPECT_NEAR(m["time_breakdown_s"]["restart"].get<double>(), 1.0 * failures, 1.0 * failures * 0.05);
  EXPECT_NEAR(b["time_breakdown_s"]["restart"].get<double>(), 240.0 * b["interruptions"]["unexpected"].get<double>(),
              240.0 * 2);
  EXPECT_GT(m["ettr"].get<double>(), b["ettr"].get<double>());
  EXPECT_EQ(m["recovery"]["instant_restarts"].get<long>(), failures) << "every recovery completed in a 3-day window";
  EXPECT_FALSE(b["recovery"].contains("instant_restarts"));
  // The metric, computed by the run, in both summaries.
  for (const auto* s : {&m, &b}) {
    const double per_day = (*s)["checkpoints"]["committed"].get<double>() /
                           ((*s)["simulated_time_s"].get<double>() / 86400);
    EXPECT_NEAR((*s)["metrics"]["test_checkpoints_per_day"].get<double>(), per_day, 1e-9);
  }
  const auto report = fleetsim("report " + (tmp / "mine"));
  ASSERT_EQ(report.code, 0) << report.text;
  const std::string html = read_file(tmp / "mine/report.html");
  EXPECT_NE(html.find("<td>test_checkpoints_per_day</td>"), std::string::npos);
  EXPECT_NE(html.find("committed checkpoints per simulated day"), std::string::npos);
}

TEST(Extensions, ComparePutsThePolicyAndTheMetricSideBySide)
{
  TempDir tmp;
  const auto r = fleetsim(
      "compare " + kScenario +
      " --set run.duration=3d --vary recovery.policy=restart,test_instant_restart --seeds 2 --quiet "
      "--out " +
      (tmp / "cmp"));
  ASSERT_EQ(r.code, 0) << r.text;
  const auto rows = lines_of(read_file(tmp / "cmp/compare.csv"));
  ASSERT_EQ(rows.size(), 3u);
  const auto header = cells(rows[0]);
  const size_t metric = column(header, "test_checkpoints_per_day");
  const size_t restart = column(header, "restart_h");
  ASSERT_LT(metric, header.size()) << rows[0];
  EXPECT_EQ(metric, header.size() - 2) << "registered metrics come after the built-ins, in registration order";
  EXPECT_EQ(column(header, "test_lost_share"), header.size() - 1);
  const auto restart_row = cells(rows[1]);
  const auto instant_row = cells(rows[2]);
  EXPECT_EQ(instant_row[0], "test_instant_restart");
  EXPECT_GT(std::stod(restart_row[restart]), 100 * std::stod(instant_row[restart]));
  EXPECT_GT(std::stod(instant_row[metric]), 0);
}

TEST(Extensions, ASweepAggregatesTheMetricAndItsReportChartsIt)
{
  TempDir tmp;
  const std::string sweep = tmp.write(
      "s.yaml",
      "base: " + kScenario +
          "\nreplicas: 3\nset: {run.duration: 2d}\nvary:\n  recovery.policy: [restart, test_instant_restart]\n");
  const auto r = fleetsim("sweep " + sweep + " -j 2 --quiet --out " + (tmp / "sw"));
  ASSERT_EQ(r.code, 0) << r.text;
  const auto rows = lines_of(read_file(tmp / "sw/results.csv"));
  ASSERT_EQ(rows.size(), 3u);
  const auto header = cells(rows[0]);
  for (const char* col :
       {"test_checkpoints_per_day_mean", "test_checkpoints_per_day_ci95", "test_checkpoints_per_day_p95"})
    EXPECT_LT(column(header, col), header.size()) << col << " in " << rows[0];
  const size_t mean = column(header, "test_checkpoints_per_day_mean");
  const size_t ettr = column(header, "ettr_mean");
  ASSERT_LT(mean, header.size());
  EXPECT_GT(std::stod(cells(rows[1])[mean]), 0);
  EXPECT_GT(std::stod(cells(rows[2])[ettr]), std::stod(cells(rows[1])[ettr])) << "instant restarts train more";
  // --merge rebuilds the same results from the replicas' summaries alone.
  const std::string before = read_file(tmp / "sw/results.csv");
  fs::remove(tmp / "sw/results.csv");
  const auto merged = fleetsim("sweep --merge " + (tmp / "sw") + " --quiet");
  ASSERT_EQ(merged.code, 0) << merged.text;
  EXPECT_EQ(read_file(tmp / "sw/results.csv"), before);
  const auto report = fleetsim("report " + (tmp / "sw"));
  ASSERT_EQ(report.code, 0) << report.text;
  EXPECT_NE(read_file(tmp / "sw/report.html").find("<h3>test_checkpoints_per_day</h3>"), std::string::npos);
}

TEST(Extensions, ThePolicysOwnKeyIsReadCheckedAndListedLikeEveryKey)
{
  TempDir tmp;
  const std::string common = kScenario + " --set run.duration=3d --seed 3 --quiet --set recovery.policy=test_instant_restart";
  const auto five = fleetsim("run " + common + " --set recovery.test_restart_time=5s --out " + (tmp / "five"));
  ASSERT_EQ(five.code, 0) << five.text;
  const auto m = summary_of(tmp / "five");
  const double failures = m["interruptions"]["unexpected"].get<double>();
  ASSERT_GT(failures, 10);
  EXPECT_NEAR(m["time_breakdown_s"]["restart"].get<double>(), 5.0 * failures, 5.0 * failures * 0.05);
  // Its unit converts, its range is checked, and an error names the key.
  const std::string with_policy = " --set recovery.policy=test_instant_restart";
  const auto minutes = fleetsim("validate " + kScenario + with_policy + " --set recovery.test_restart_time=2min");
  EXPECT_EQ(minutes.code, 0) << minutes.text;
  for (const char* bad : {"-1s", "2h", "5kg"}) {
    const auto r = fleetsim("validate " + kScenario + with_policy + " --set recovery.test_restart_time=" + bad);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.text;
    EXPECT_NE(r.text.find("recovery.test_restart_time"), std::string::npos) << r.text;
  }
  // A fleet refuses it, as it refuses recovery.policy.
  const auto fleet = fleetsim("validate " + std::string(FLEETSIM_SOURCE_DIR) +
                              "/scenarios/fleet_checkpoint_storm.yaml --set recovery.test_restart_time=5s");
  EXPECT_EQ(fleet.code, 2) << fleet.text;
  EXPECT_NE(fleet.text.find("recovery.test_restart_time"), std::string::npos) << fleet.text;
  // describe lists it with its unit, default and description, after recovery.policy.
  const auto described = fleetsim("describe");
  ASSERT_EQ(described.code, 0) << described.text;
  const size_t policy = described.text.find("recovery.policy");
  const size_t key = described.text.find("recovery.test_restart_time");
  ASSERT_NE(key, std::string::npos) << described.text;
  EXPECT_LT(policy, key);
  const std::string line = described.text.substr(key, described.text.find('\n', key) - key);
  EXPECT_NE(described.text.find("test_instant_restart: the restart phase", key), std::string::npos);
  EXPECT_NE(line.find("1s"), std::string::npos) << line;
}

// The fleet metric: one declaration (above) reaches a fleet's summary.json, compare.csv, a sweep's
// results.csv and the fleet report; the single-job metric reads null there, and the other way round.
TEST(Extensions, AFleetMetricReachesTheSummaryCompareTheSweepAndTheReport)
{
  TempDir tmp;
  const std::string fleet_scenario = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/fleet_checkpoint_storm.yaml";
  const auto r = fleetsim("run " + fleet_scenario + " --set run.duration=2d --quiet --out " + (tmp / "fleet"));
  ASSERT_EQ(r.code, 0) << r.text;
  const auto sum = summary_of(tmp / "fleet");
  const double expected = sum["gpu_hours"]["lost"].get<double>() / sum["gpu_hours"]["allocated"].get<double>();
  ASSERT_GT(expected, 0.05);
  EXPECT_NEAR(sum["metrics"]["test_lost_share"].get<double>(), expected, 1e-6) << "summary.json rounds to 1e-3 GPU-h";
  EXPECT_TRUE(sum["metrics"]["test_checkpoints_per_day"].is_null()) << "a single job's metric has no fleet value";
  const auto report = fleetsim("report " + (tmp / "fleet"));
  ASSERT_EQ(report.code, 0) << report.text;
  const std::string html = read_file(tmp / "fleet/report.html");
  EXPECT_NE(html.find("<td>test_lost_share</td>"), std::string::npos);
  EXPECT_NE(html.find("share of the allocated GPU-time of a fleet that was lost"), std::string::npos);
  // compare: a longer window loses a smaller share to the start-ups.
  const auto cmp = fleetsim("compare " + fleet_scenario + " --vary run.duration=1d,3d --quiet --out " + (tmp / "cmp"));
  ASSERT_EQ(cmp.code, 0) << cmp.text;
  const auto rows = lines_of(read_file(tmp / "cmp/compare.csv"));
  ASSERT_EQ(rows.size(), 3u);
  const size_t col = column(cells(rows[0]), "test_lost_share");
  ASSERT_LT(col, cells(rows[0]).size()) << rows[0];
  EXPECT_GT(std::stod(cells(rows[1])[col]), 0);
  EXPECT_NE(cells(rows[1])[col], cells(rows[2])[col]);
  // sweep: its mean and interval in results.csv.
  const std::string sweep = tmp.write("f.yaml", "base: " + fleet_scenario +
                                                    "\nreplicas: 2\nset: {run.duration: 1d}\nvary:\n  "
                                                    "storage.write_bandwidth: [400Gbps, 6400Gbps]\n");
  const auto sw = fleetsim("sweep " + sweep + " -j 2 --quiet --out " + (tmp / "sw"));
  ASSERT_EQ(sw.code, 0) << sw.text;
  const auto results = lines_of(read_file(tmp / "sw/results.csv"));
  ASSERT_EQ(results.size(), 3u);
  const size_t mean = column(cells(results[0]), "test_lost_share_mean");
  ASSERT_LT(mean, cells(results[0]).size()) << results[0];
  EXPECT_GT(std::stod(cells(results[1])[mean]), std::stod(cells(results[2])[mean]))
      << "slower storage stalls the checkpoints longer";
}

TEST(Extensions, AnUnregisteredPolicyIsStillABadScenario)
{
  const auto r = fleetsim("validate " + kScenario + " --set recovery.policy=test_instant_restar");
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("test_instant_restart"), std::string::npos) << "the registered names are listed:\n" << r.text;
  const auto ok = fleetsim("validate " + kScenario + " --set recovery.policy=test_instant_restart");
  EXPECT_EQ(ok.code, 0) << ok.text;
}

}  // namespace

int main(int argc, char** argv)
{
  if (argc > 1 && std::string_view(argv[1]) == "--as-fleetsim")
    return fleetsim::cli::main(argc - 1, argv + 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
