// A trace's and the generator's jobs on the replay's runtime (workload.defaults.runtime: replay):
// each a unit of work whose step is a second of it (work_job_scenario), through the fleetsim binary,
// against the same jobs closed-form; and what the runtime does not model yet, refused at the key.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <utility>

namespace {

using fleetsim::testing::Csv;
using fleetsim::testing::fleetsim_command;
using fleetsim::testing::read_csv;
using fleetsim::testing::read_file;
using fleetsim::testing::TempDir;

const std::string kWorkJobs = std::string(FLEETSIM_SOURCE_DIR) + "/tests/data/fleet/work_jobs.yaml";

// Mean of jobs.csv's `ettr` by GPUs, and the jobs that have one.
std::map<long, std::pair<double, long>> ettr_by_size(const Csv& jobs)
{
  std::map<long, std::pair<double, long>> out;
  for (size_t i = 0; i < jobs.rows.size(); ++i) {
    if (jobs.cell(i, "ettr").empty())
      continue;
    auto& [sum, n] = out[std::stol(jobs.cell(i, "gpus"))];
    sum += std::stod(jobs.cell(i, "ettr"));
    ++n;
  }
  return out;
}

// The generator's 825-odd jobs of 1 to 64 nodes for 20 days, under the Llama 3 causes: on the runtime
// they are the closed-form jobs' within what the two models do differently (its recoveries' phases
// are the replay's), and no job writes outputs of its own.
TEST(WorkJob, AGeneratorsJobsOnTheRuntimeAreTheClosedFormJobs)
{
  TempDir dir;
  const auto closed = fleetsim_command("run " + kWorkJobs + " --seed 2 --quiet --out " + (dir / "closed"));
  ASSERT_EQ(closed.code, 0) << closed.text;
  const auto runtime = fleetsim_command("run " + kWorkJobs + " --seed 2 --set workload.defaults.runtime=replay " +
                                        "--quiet --out " + (dir / "runtime"));
  ASSERT_EQ(runtime.code, 0) << runtime.text;
  const nlohmann::json c = nlohmann::json::parse(read_file(dir / "closed/summary.json"));
  const nlohmann::json r = nlohmann::json::parse(read_file(dir / "runtime/summary.json"));
  EXPECT_GT(r["jobs"]["finished"].get<long>(), 700);
  EXPECT_NEAR(r["jobs"]["finished"].get<double>(), c["jobs"]["finished"].get<double>(), 5);
  EXPECT_GT(r["interruptions"].get<long>(), 10);
  EXPECT_GT(r["requeues"].get<long>(), 5);  // workload.defaults.recovery: requeue, on the runtime too
  // The same work done: productive GPU-hours agree to 0.01 %, allocated to 0.2 %.
  const auto hours = [](const nlohmann::json& s, const char* what) { return s["gpu_hours"][what].get<double>(); };
  EXPECT_NEAR(hours(r, "productive") / hours(c, "productive"), 1, 1e-4);
  EXPECT_NEAR(hours(r, "allocated") / hours(c, "allocated"), 1, 2e-3);
  // Each start costs restart_cost, charged to start-up in both; each checkpoint checkpoint_cost,
  // none when the work is done.
  for (const char* cause : {"startup", "checkpoint"})
    EXPECT_NEAR(r["gpu_hours"]["lost_by_cause"][cause].get<double>(),
                c["gpu_hours"]["lost_by_cause"][cause].get<double>(), 1.0)
        << cause;
  const auto mean_c = ettr_by_size(read_csv(dir / "closed/jobs.csv"));
  const auto mean_r = ettr_by_size(read_csv(dir / "runtime/jobs.csv"));
  ASSERT_EQ(mean_c.size(), 3U);
  for (const auto& [gpus, cell] : mean_c) {
    ASSERT_EQ(mean_r.count(gpus), 1U) << gpus;
    EXPECT_EQ(mean_r.at(gpus).second, cell.second) << gpus;
    EXPECT_NEAR(mean_r.at(gpus).first / mean_r.at(gpus).second, cell.first / cell.second, 0.01) << gpus;
  }
  // A work job has no outputs of its own, nor tokens.
  EXPECT_FALSE(std::filesystem::exists(dir / "runtime/jobs"));
  EXPECT_FALSE(r.contains("replayed_jobs"));
  const Csv jobs = read_csv(dir / "runtime/jobs.csv");
  for (size_t i = 0; i < jobs.rows.size(); ++i)
    EXPECT_EQ(jobs.cell(i, "tokens_trained"), "") << i;
}

// In place (workload.defaults.recovery: in_place), a work job restarts on its healthy nodes and
// replacements (the restart policy), never requeued.
TEST(WorkJob, InPlaceJobsRestartOnTheRuntime)
{
  TempDir dir;
  const auto out = fleetsim_command("run " + kWorkJobs +
                                    " --seed 1 --set workload.defaults.runtime=replay "
                                    "--set workload.defaults.recovery=in_place --quiet --out " +
                                    (dir / "out"));
  ASSERT_EQ(out.code, 0) << out.text;
  const nlohmann::json s = nlohmann::json::parse(read_file(dir / "out/summary.json"));
  EXPECT_GT(s["interruptions"].get<long>(), 10);
  EXPECT_EQ(s["requeues"].get<long>(), 0);  // restarted in place, not requeued
}

// With workload.defaults.checkpoint_size_per_gpu its checkpoints are written to the storage (through
// a client of its own): they take as long as the writes, about what the closed-form jobs' writes
// from their nodes take.
TEST(WorkJob, WithCheckpointBytesWritesThemToTheStorage)
{
  TempDir dir;
  const std::string sets = " --seed 1 --set workload.defaults.checkpoint_size_per_gpu=20GB --quiet --out ";
  const auto closed = fleetsim_command("run " + kWorkJobs + sets + (dir / "closed"));
  ASSERT_EQ(closed.code, 0) << closed.text;
  const auto runtime = fleetsim_command("run " + kWorkJobs + " --set workload.defaults.runtime=replay" + sets +
                                        (dir / "runtime"));
  ASSERT_EQ(runtime.code, 0) << runtime.text;
  const Csv storage = read_csv(dir / "runtime/storage.csv");
  double written = 0;  // (each row's rates hold until the next row)
  for (size_t i = 0; i + 1 < storage.rows.size(); ++i)
    written += std::stod(storage.cell(i, "write_Bps")) *
               (std::stod(storage.cell(i + 1, "time_s")) - std::stod(storage.cell(i, "time_s")));
  EXPECT_GT(written, 1e15);  // hundreds of checkpoints of 160 GB to 10 TB
  const auto checkpoint = [](const std::filesystem::path& p) {
    return nlohmann::json::parse(read_file(p))["gpu_hours"]["lost_by_cause"]["checkpoint"].get<double>();
  };
  const double c = checkpoint(dir / "closed/summary.json");
  const double r = checkpoint(dir / "runtime/summary.json");
  EXPECT_GT(r, 0.5 * c);
  EXPECT_LT(r, 2 * c);
}

class WorkJobRefuses : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(WorkJobRefuses, WhatTheRuntimeDoesNotModelAtTheKey)
{
  TempDir dir;
  const auto out = fleetsim_command("run " + kWorkJobs + " --set workload.defaults.runtime=replay " + GetParam().first +
                                    " --quiet --out " + (dir / "out"));
  EXPECT_EQ(out.code, 2) << out.text;
  EXPECT_NE(out.text.find(GetParam().second), std::string::npos) << out.text;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

INSTANTIATE_TEST_SUITE_P(
    Keys, WorkJobRefuses,
    ::testing::Values(std::pair{"--set workload.generator.gpus=4:1", "needs jobs of whole nodes: a job of 4 GPUs"},
                      std::pair{"--set scheduler.preemption=kill --set scheduler.policy=priority",
                                "'scheduler.preemption' of the jobs on the replay's runtime"},
                      std::pair{"--set network.fleet_fabric=shared", "'network.fleet_fabric: shared' beside the jobs"},
                      std::pair{"--set stragglers.episode_interval=1d --set "
                                "stragglers.episode_speed=0.5",
                                "'stragglers.episode_interval' applies to a single job's"},
                      std::pair{"--set failures.causes.nic.scope=storage",
                                "'failures.causes.nic.scope: storage' beside the jobs"}));

}  // namespace
