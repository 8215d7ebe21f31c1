// `fleetsim step` as a user runs it: step.json and step_trace.json of the simulated Llama 3 iteration,
// byte-identical outputs from two runs, and bad layouts rejected before anything is written.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

namespace {

namespace fs = std::filesystem;
using Output = fleetsim::testing::ProcessOutput;

const std::string kLlama3 = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/llama3_405b_16k.yaml";
const std::string kNoFailures = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/no_failures.yaml";

Output fleetsim(const std::string& args) { return fleetsim::testing::fleetsim_command(args); }

std::string read_file(const fs::path& p)
{
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string without_wall_time(const std::string& text)
{
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);)
    if (line.find("\"wall_time_s\"") == std::string::npos)
      out += line + "\n";
  return out;
}

using ::fleetsim::testing::TempDir;

TEST(StepCli, SimulatesLlama3IterationIntoStepJsonAndChromeTrace)
{
  TempDir tmp;
  const std::string out = tmp / "llama3";
  const Output o = fleetsim("step " + kLlama3 + " --out " + out);
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("simulated step model"), std::string::npos) << o.text;

  const auto j = nlohmann::json::parse(read_file(fs::path(out) / "step.json"));
  for (const char* key : {"step_time_s", "compute_s", "comm_exposed_s", "sync_s", "overlap_s", "bubble_s", "mfu",
                          "binding_term", "model"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j.at("model").get<std::string>(), "simulated");
  EXPECT_EQ(j.at("gpus").get<long>(), 16384);
  EXPECT_EQ(j.at("layout").at("pp").get<int>(), 16);
  const std::set<std::string> terms = {"compute", "communication", "coordination"};
  EXPECT_TRUE(terms.count(j.at("binding_term").get<std::string>())) << j.at("binding_term");
  const double step = j.at("step_time_s").get<double>();
  EXPECT_NEAR(j.at("compute_s").get<double>() + j.at("comm_exposed_s").get<double>() + j.at("sync_s").get<double>(),
              step, 1e-6);
  EXPECT_NEAR(j.at("comm_s").get<double>() - j.at("overlap_s").get<double>(), j.at("comm_exposed_s").get<double>(),
              1e-6);
  const double mfu = j.at("mfu").get<double>();
  EXPECT_GT(mfu, 0.3);
  EXPECT_LT(mfu, 0.6);

  const auto trace = nlohmann::json::parse(read_file(fs::path(out) / "step_trace.json"));
  ASSERT_TRUE(trace.contains("traceEvents"));
  ASSERT_TRUE(trace["traceEvents"].is_array());
  std::map<int, int> complete;                 // pid -> "X" events
  std::map<int, std::set<int>> named_threads;  // pid -> tids with a thread_name
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e.at("ph").get<std::string>();
    const int pid = e.at("pid").get<int>();
    if (ph == "X") {
      ++complete[pid];
      EXPECT_GE(e.at("ts").get<double>(), 0);
      EXPECT_GT(e.at("dur").get<double>(), 0);
      EXPECT_LE(e.at("ts").get<double>() + e.at("dur").get<double>(), step * 1e6 * (1 + 1e-9)) << e.dump();
    } else if (ph == "M" && e.at("name") == "thread_name") {
      named_threads[pid].insert(e.at("tid").get<int>());
    }
  }
  for (int pid = 1; pid <= 4; ++pid) {
    SCOPED_TRACE("pid " + std::to_string(pid));
    EXPECT_GT(complete[pid], 0);
    ASSERT_EQ(named_threads[pid].size(), 16u);
    EXPECT_EQ(*named_threads[pid].begin(), 0);
    EXPECT_EQ(*named_threads[pid].rbegin(), 15);
  }
  EXPECT_EQ(complete.size(), 4u);  // no events outside the four groups
}

TEST(StepCli, TwoRunsWriteIdenticalOutputs)
{
  TempDir tmp;
  // 1,024 GPUs, TP 8 x PP 16 x DP 8, interleaved in 2 chunks over 32 micro-batches, in pods of 256.
  const std::string args =
      " --set run.step_model=simulated --set parallelism.virtual_stages=2"
      " --set model.global_batch_tokens=2097152 --set network.pod_size=256"
      " --set network.pod_oversubscription=3";
  for (const char* run : {"a", "b"}) {
    const Output o = fleetsim("step " + kNoFailures + args + " --out " + (tmp / run));
    ASSERT_EQ(o.code, 0) << o.text;
  }
  const std::string a = read_file(fs::path(tmp / "a") / "step.json");
  const std::string b = read_file(fs::path(tmp / "b") / "step.json");
  ASSERT_NE(a.find("\"wall_time_s\""), std::string::npos) << a;
  EXPECT_NE(a.find("\"model\": \"simulated\""), std::string::npos) << a;
  EXPECT_EQ(without_wall_time(a), without_wall_time(b));
  const std::string ta = read_file(fs::path(tmp / "a") / "step_trace.json");
  EXPECT_FALSE(ta.empty());
  EXPECT_EQ(ta, read_file(fs::path(tmp / "b") / "step_trace.json"));
}

TEST(StepCli, RejectsInterleavingWhenMicroBatchesAreNotAMultipleOfStages)
{
  TempDir tmp;
  // no_failures.yaml: PP 16, DP 8; a 512Ki-token batch gives 8 micro-batches per pipeline, which the
  // interleaved schedule (virtual_stages 2) cannot split into groups of 16.
  const std::string out = tmp / "out";
  const Output o = fleetsim("step " + kNoFailures +
                            " --set run.step_model=simulated --set parallelism.virtual_stages=2"
                            " --set model.global_batch_tokens=524288 --out " +
                            out);
  EXPECT_EQ(o.code, 2) << o.text;
  EXPECT_NE(o.text.find("error: "), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("virtual_stages"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("parallelism.pp"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("(8)"), std::string::npos) << o.text;
  EXPECT_FALSE(fs::exists(out));

  // The same layout with 16 micro-batches is fine.
  const Output ok = fleetsim("step " + kNoFailures +
                             " --set run.step_model=simulated --set parallelism.virtual_stages=2 --out " + out);
  EXPECT_EQ(ok.code, 0) << ok.text;
  EXPECT_TRUE(fs::exists(fs::path(out) / "step.json"));
}

}  // namespace
