// The Llama 3 replay reproduces the paper's interruption statistics: over 200 seeds, 419 unexpected
// interruptions in 54 days on average, and each of the 18 root causes at its Table 5 count.
#include "run_in_child.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace fleetsim::testing {
namespace {

constexpr int kSeeds = 200;

// Llama 3 Table 5 counts (shared/reference/llama3_interruptions.csv), by the scenario's cause names.
const std::map<std::string, double> kTable5 = {
    {"faulty_gpu", 148},
    {"gpu_hbm3_memory", 72},
    {"software_bug", 54},
    {"network_switch_cable", 35},
    {"host_maintenance", 32},
    {"gpu_sram_memory", 19},
    {"gpu_system_processor", 17},
    {"nic", 7},
    {"nccl_watchdog_timeouts", 7},
    {"silent_data_corruption", 6},
    {"gpu_thermal_interface_sensor", 6},
    {"ssd", 3},
    {"power_supply", 3},
    {"server_chassis", 2},
    {"io_expansion_board", 2},
    {"dependency", 2},
    {"cpu", 2},
    {"system_memory", 2},
};

TEST(Llama3Calibration, MeanInterruptionsMatchThePaperOver200Seeds)
{
  std::vector<ChildRun> runs;
  for (int seed = 1; seed <= kSeeds; ++seed)
    runs.push_back({scenario_path("scenarios/llama3_405b_16k.yaml"), {}, static_cast<std::uint64_t>(seed)});
  const auto results = run_children(runs, 2);

  double total = 0, planned = 0;
  std::map<std::string, double> by_cause;
  for (const auto& r : results) {
    ASSERT_TRUE(r.ok) << r.error;
    total += r.summary["interruptions"]["unexpected"].get<double>();
    planned += r.summary["interruptions"]["planned"].get<double>();
    for (const auto& [name, count] : r.summary["interruptions"]["by_cause"].items())
      by_cause[name] += count.get<double>();
  }
  const double mean = total / kSeeds;
  EXPECT_NEAR(mean, 419.0, 0.02 * 419.0) << "mean unexpected interruptions over " << kSeeds << " seeds";
  // 47 planned interruptions evenly spaced; a failure can push the last one past the window.
  EXPECT_NEAR(planned / kSeeds, 47.0, 0.5);

  // Each cause: the mean of 200 Poisson counts has standard error sqrt(lambda / 200).
  // Accept 4 standard errors per cause, and check the chi-square of all 18 together
  // (18 degrees of freedom: P(chi2 > 42.3) = 0.001).
  ASSERT_EQ(by_cause.size(), kTable5.size());
  double chi2 = 0;
  for (const auto& [name, lambda] : kTable5) {
    const double m = by_cause[name] / kSeeds;
    const double se = std::sqrt(lambda / kSeeds);
    EXPECT_NEAR(m, lambda, 4 * se) << name;
    chi2 += (m - lambda) * (m - lambda) / (se * se);
  }
  EXPECT_LT(chi2, 42.3);
}

}  // namespace
}  // namespace fleetsim::testing
