// `fleetsim plan` as a user runs it: the ranked table and plan.csv, the scenario's own layout marked,
// and a model that fits nowhere rejected with exit 2 and nothing written.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using ::fleetsim::testing::TempDir;

const std::string kStep = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/validation/narayanan21_39b.yaml";

fleetsim::testing::ProcessOutput fleetsim(const std::string& args) { return fleetsim::testing::fleetsim_command(args); }

std::vector<std::vector<std::string>> read_csv(const fs::path& p)
{
  std::ifstream in(p);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');)
      cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST(PlanCli, RanksTheLayoutsOfNarayanans39bRowIntoPlanCsvFastestFirstAndMarksTheScenariosOwn)
{
  TempDir dir;
  const auto r = fleetsim("plan " + kStep + " --top 5 --simulate 0 --out " + dir.path().string());
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("ranked by the analytic step"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("re-ranked"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("<- the scenario's layout"), std::string::npos) << r.text;
  const auto rows = read_csv(dir.path() / "plan.csv");
  ASSERT_GT(rows.size(), 6U);
  ASSERT_EQ(rows[0].size(), 20U);
  EXPECT_EQ(rows[0][0], "rank");
  EXPECT_EQ(rows[0][7], "embedding_chunks");
  EXPECT_EQ(rows[0][11], "step_time_s");
  EXPECT_EQ(rows[0][18], "analytic_rank");
  int own = 0;
  double last = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 19U) << i;  // the simulated step is empty: a trailing empty cell
    EXPECT_EQ(std::stoul(rows[i][0]), i);
    EXPECT_EQ(std::stoul(rows[i][18]), i);
    const double t = std::stod(rows[i][11]);
    EXPECT_GE(t, last) << "row " << i;
    last = t;
    // tp x cp x pp x dp is the GPU count of the scenario: 512.
    EXPECT_EQ(std::stol(rows[i][1]) * std::stol(rows[i][2]) * std::stol(rows[i][3]) * std::stol(rows[i][4]), 512);
    own += rows[i][17] == "1" ? 1 : 0;
  }
  EXPECT_EQ(own, 1);  // TP 8, PP 2, DP 32 with micro-batches of 4 fits with full recomputation
}

TEST(PlanCli, TheAnalyticTopFewAreSimulatedAndReRankedByTheSimulatedStep)
{
  // The top 4 of the analytic ranking are simulated on the fabric and re-ranked among themselves;
  // the rest keep their analytic order after them.
  TempDir analytic_dir;
  ASSERT_EQ(fleetsim("plan " + kStep + " --quiet --simulate 0 --out " + analytic_dir.path().string()).code, 0);
  TempDir dir;
  const auto r = fleetsim("plan " + kStep + " --top 4 --simulate 4 --out " + dir.path().string());
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("the top 4 re-ranked by the simulated step"), std::string::npos) << r.text;
  const auto rows = read_csv(dir.path() / "plan.csv");
  const auto analytic = read_csv(analytic_dir.path() / "plan.csv");
  ASSERT_EQ(rows.size(), analytic.size());
  ASSERT_GT(rows.size(), 6U);
  std::vector<bool> seen(5, false);
  double last = 0;
  for (size_t i = 1; i <= 4; ++i) {
    ASSERT_EQ(rows[i].size(), 20U) << i;
    const double simulated = std::stod(rows[i][19]);
    EXPECT_GT(simulated, 0);
    EXPECT_GE(simulated, last) << "row " << i;
    last = simulated;
    const size_t from = std::stoul(rows[i][18]);
    ASSERT_GE(from, 1U);
    ASSERT_LE(from, 4U);
    seen[from] = true;
    // The row's analytic columns are those of the layout the analytic ranking put at `from`.
    for (size_t col = 1; col <= 11; ++col)
      EXPECT_EQ(rows[i][col], analytic[from][col]) << "row " << i << " column " << col;
    // Simulated and analytic agree on these steps to within a tenth.
    EXPECT_NEAR(simulated, std::stod(rows[i][11]), 0.1 * simulated);
  }
  EXPECT_TRUE(seen[1] && seen[2] && seen[3] && seen[4]);
  for (size_t i = 5; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].size(), 19U) << i;
    EXPECT_EQ(rows[i], analytic[i]) << i;
  }
}

TEST(PlanCli, AnotherGpuCountLaysOutThatMany)
{
  TempDir dir;
  const auto r = fleetsim("plan " + kStep + " --gpus 64 --quiet --simulate 1 --out " + dir.path().string());
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_TRUE(r.text.empty()) << r.text;
  const auto rows = read_csv(dir.path() / "plan.csv");
  ASSERT_GT(rows.size(), 1U);
  for (size_t i = 1; i < rows.size(); ++i)
    EXPECT_EQ(std::stol(rows[i][1]) * std::stol(rows[i][2]) * std::stol(rows[i][3]) * std::stol(rows[i][4]), 64);
}

TEST(PlanCli, RestrictedToContextParallelism1TheLlama3ScenarioLayoutRanksFirst)
{
  TempDir dir;
  const std::string llama3 = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/validation/llama3_405b_16k_step.yaml";
  const auto r = fleetsim("plan " + llama3 + " --cp 1 --top 3 --simulate 0 --out " + dir.path().string());
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(r.text.find("(CP 1)"), std::string::npos) << r.text;
  const auto rows = read_csv(dir.path() / "plan.csv");
  ASSERT_GT(rows.size(), 2U);
  EXPECT_EQ(rows[1][17], "1") << "the first row is the scenario's own layout (TP 8, PP 16, DP 128)";
  for (size_t i = 1; i < rows.size(); ++i)
    EXPECT_EQ(rows[i][2], "1") << i;
  // A CP degree that divides nothing leaves no consistent layout: exit 2, nothing written.
  const fs::path out = dir.path() / "none";
  const auto none = fleetsim("plan " + llama3 + " --cp 3 --out " + out.string());
  EXPECT_EQ(none.code, 2) << none.text;
  EXPECT_NE(none.text.find("is consistent"), std::string::npos) << none.text;
  EXPECT_FALSE(fs::exists(out));
}

// --embedding-chunks: the scenario's setting by default (Llama 3's: on), or both settings, or one.
TEST(PlanCli, EmbeddingChunksAreSearchedAsTheScenarioSetsThemOrBothWays)
{
  const std::string llama3 = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/validation/llama3_405b_16k_step.yaml";
  auto settings = [&](const std::string& mode) {
    TempDir dir;
    const auto r = fleetsim("plan " + llama3 + " --cp 1 --quiet --simulate 0" + mode + " --out " + dir.path().string());
    EXPECT_EQ(r.code, 0) << r.text;
    std::set<std::string> seen;
    std::set<std::string> own;
    const auto rows = read_csv(dir.path() / "plan.csv");
    for (size_t i = 1; i < rows.size(); ++i) {
      seen.insert(rows[i][7]);
      if (rows[i][17] == "1")
        own.insert(rows[i][6] + "/" + rows[i][7]);
      if (rows[i][3] == "1") {
        EXPECT_EQ(rows[i][7], "0") << "a single stage has no embedding chunks";
      }
    }
    EXPECT_LE(own.size(), 1U);
    return std::make_pair(seen, own);
  };
  const auto scenario = settings("");
  EXPECT_EQ(scenario.first, (std::set<std::string>{"1"}));
  EXPECT_EQ(scenario.second, (std::set<std::string>{"8/1"}));  // the paper's pipeline, v = 8
  const auto both = settings(" --embedding-chunks both");
  EXPECT_EQ(both.first, (std::set<std::string>{"0", "1"}));
  EXPECT_EQ(both.second, (std::set<std::string>{"8/1"}));
  const auto off = settings(" --embedding-chunks off");
  EXPECT_EQ(off.first, (std::set<std::string>{"0"}));
  EXPECT_TRUE(off.second.empty()) << "v = 8 without embedding chunks does not fit 126 layers in 16 stages";
  EXPECT_EQ(fleetsim("plan " + llama3 + " --embedding-chunks maybe").code, 2);
}

TEST(PlanCli, AtLlama3sLongContextLengthTheSearchPrefersContextParallelism)
{
  // 131,072-token sequences, 16M tokens per batch (Table 4's long-context row): the attention's
  // s^2 outgrows what CP's shorter kernels and ring cost, and no layout without CP ranks first.
  TempDir dir;
  const std::string llama3 = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/validation/llama3_405b_16k_step.yaml";
  const auto r = fleetsim("plan " + llama3 +
                          " --set model.sequence_length=131072 --set model.global_batch_tokens=16777216"
                          " --set parallelism.cp=16 --set parallelism.dp=8 --top 3 --simulate 0 --out " +
                          dir.path().string());
  ASSERT_EQ(r.code, 0) << r.text;
  const auto rows = read_csv(dir.path() / "plan.csv");
  ASSERT_GT(rows.size(), 2U);
  EXPECT_GT(std::stoi(rows[1][2]), 1) << "the best layout's cp";
}

TEST(PlanCli, AModelThatFitsNowhereIsExit2AndWritesNothing)
{
  TempDir dir;
  const fs::path out = dir.path() / "plan";
  const auto r = fleetsim("plan " + kStep + " --gpus 8 --out " + out.string());
  EXPECT_EQ(r.code, 2) << r.text;
  EXPECT_NE(r.text.find("fits in HBM"), std::string::npos) << r.text;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(fleetsim("plan " + kStep + " --gpus 0").code, 2);
}

}  // namespace
