// Queueing theory through the simulator: single-GPU jobs with Poisson arrivals on one GPU reproduce
// the Pollaczek-Khinchine mean wait, and on c GPUs with exponential jobs Erlang C, within 3 %.
// The fleet scheduler, the generator and the SimGrid actors all take part, as in a user's run.
//
// Statistics: at rho = 0.8 successive waits are strongly correlated, and one run of 300,000 jobs
// estimates the M/M/1 mean wait with a relative standard deviation of about 2 %. Each test pools
// eight seeds (2.4 million jobs, about 0.75 %), so a 3 % band is four standard deviations wide.
#include "fleetsim_process.hpp"

#include "models/fleet/queueing.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace {

using fleetsim::testing::fleetsim_command;
using fleetsim::testing::read_file;
using fleetsim::testing::TempDir;

const std::string kQueue = std::string(FLEETSIM_SOURCE_DIR) + "/tests/data/fleet/queue.yaml";
constexpr int kSeeds = 8;

// The mean first wait over the jobs of kSeeds runs (s), with `sets` applied.
double pooled_mean_wait(const std::string& sets)
{
  TempDir dir;
  double sum = 0;
  double count = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    std::string name = "s";
    name += std::to_string(seed);
    const std::string out = dir / name;
    std::string args = "run ";
    args += kQueue;
    args += " --set workload.generator.window=16000d --set run.duration=16100d ";
    args += sets;
    args += " --seed ";
    args += std::to_string(seed);
    args += " --quiet --out ";
    args += out;
    const auto r = fleetsim_command(args);
    EXPECT_EQ(r.code, 0) << r.text;
    const auto summary = nlohmann::json::parse(read_file(out + "/summary.json"));
    EXPECT_EQ(summary["jobs"]["waiting_at_end"], 0);
    const double n = summary["wait_s"]["count"].get<double>();
    sum += summary["wait_s"]["mean"].get<double>() * n;
    count += n;
  }
  return sum / count;
}

}  // namespace

TEST(FleetQueueing, MM1MeanWaitIsPollaczekKhinchineFourMeanJobs)
{
  const double expected = fleetsim::models::fleet::pollaczek_khinchine_wait(0.8, 3600, 1.0);
  EXPECT_DOUBLE_EQ(expected, 4 * 3600.0);
  const double w = pooled_mean_wait("");
  EXPECT_NEAR(w / expected, 1, 0.03) << "mean wait " << w << " s";
}

TEST(FleetQueueing, MD1MeanWaitIsHalfThatOfMM1)
{
  // C_s = 0: every job lasts exactly 1 h (a lognormal of sigma 0).
  const double expected = fleetsim::models::fleet::pollaczek_khinchine_wait(0.8, 3600, 0.0);
  const double w = pooled_mean_wait(
      "--set workload.generator.duration=lognormal --set workload.generator.median=1h --set "
      "workload.generator.sigma=0");
  EXPECT_NEAR(w / expected, 1, 0.03) << "mean wait " << w << " s";
}

TEST(FleetQueueing, MMcMeanWaitIsErlangC)
{
  // Eight GPUs in one node, single-GPU exponential jobs, rho = 0.8 per GPU: a = 6.4.
  const double expected = fleetsim::models::fleet::erlang_c_wait(8, 6.4, 3600);
  const double w = pooled_mean_wait(
      "--set cluster.gpus=8 --set cluster.gpus_per_node=8 --set cluster.gpus_per_rack=8 "
      "--set workload.generator.arrivals_per_day=153.6 --set workload.generator.window=2000d "
      "--set run.duration=2010d");
  EXPECT_NEAR(w / expected, 1, 0.03) << "mean wait " << w << " s, Erlang C " << expected << " s";
}
