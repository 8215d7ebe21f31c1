// `fleetsim collective` as a user runs it.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace {

using Output = fleetsim::testing::ProcessOutput;

Output fleetsim(const std::string& args) { return fleetsim::testing::fleetsim_command(args); }

const std::string kScenario = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/llama3_405b_16k.yaml";

TEST(CollectiveCli, PrintsSimulatedTimeBesideTheAlphaBetaPrediction)
{
  const Output o = fleetsim("collective " + kScenario +
                            " --op allreduce --algo ring --ranks 64 --size 64MB --mode full");
  ASSERT_EQ(o.code, 0) << o.text;
  // 2*63*5us + 2*63/64*64MB/50GB/s = 0.63 ms + 2.52 ms = 3.15 ms.
  EXPECT_NE(o.text.find("0.003150"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("alpha-beta prediction"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("(simulated +0.000%)"), std::string::npos) << o.text;
}

TEST(CollectiveCli, OutWritesTheSameFiguresAsJsonAndQuietPrintsNothing)
{
  fleetsim::testing::TempDir dir;
  const Output o = fleetsim("collective " + kScenario + " --op allreduce --algo ring --ranks 64 --size 64MB --quiet" +
                            " --out " + dir.path().string());
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_TRUE(o.text.empty()) << o.text;
  std::ifstream in(dir.path() / "collective.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["ranks"], 64);
  EXPECT_EQ(j["algo"], "ring");
  EXPECT_NEAR(j["simulated_s"].get<double>(), 0.00315, 1e-9);  // as printed above
  EXPECT_NEAR(j["predicted_s"].get<double>(), 0.00315, 1e-9);
  // Bus bandwidth: 2 (n-1)/n S / t = 2 * 63/64 * 64 MB / 3.15 ms = 40 GB/s.
  EXPECT_NEAR(j["bus_bandwidth_bytes_per_s"].get<double>(), 40e9, 1e6);
  EXPECT_GT(j["wire_bytes"]["nic_in_rack"].get<double>(), 0);
}

TEST(CollectiveCli, RejectsUnknownOpAlgoAndBadSizes)
{
  EXPECT_EQ(fleetsim("collective " + kScenario + " --op alltoall").code, 2);
  EXPECT_EQ(fleetsim("collective " + kScenario + " --algo butterfly").code, 2);
  EXPECT_EQ(fleetsim("collective " + kScenario + " --op allgather --algo tree").code, 2);
  const Output o = fleetsim("collective " + kScenario + " --size 1000");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.text.find("no unit"), std::string::npos) << o.text;
  EXPECT_EQ(fleetsim("collective " + kScenario + " --ranks 0").code, 2);
  // A torus must be filled exactly: 8 ranks cannot make an 8x8x16 torus (a clear error, not a crash).
  const auto torus = fleetsim("collective " + kScenario +
                              " --set network.topology=torus --set network.torus_dims=8x8x16 --set cluster.gpus=1024"
                              " --set parallelism.dp=8 --ranks 8");
  EXPECT_EQ(torus.code, 2) << torus.text;
  EXPECT_NE(torus.text.find("torus"), std::string::npos) << torus.text;
}

}  // namespace
