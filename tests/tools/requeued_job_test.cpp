// The requeue recovery policy (models/resilience/recovery/requeue_policy.cpp) through the fleetsim
// binary: after a failure is detected the job gives every node back and waits, holding none, to be
// placed again -- in a fleet by the fleet's queue, where another job may take its nodes meanwhile;
// in the replay, until idle nodes can hold it.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace {

using fleetsim::testing::Csv;
using fleetsim::testing::fleetsim_command;
using fleetsim::testing::read_csv;
using fleetsim::testing::read_file;
using fleetsim::testing::TempDir;

const std::string kRequeued = std::string(FLEETSIM_SOURCE_DIR) + "/tests/data/fleet/requeued_replayed_jobs.yaml";

struct Span {
  double begin = 0;
  double end = 0;
};

// The job's waiting rows of timeline.csv; every one holds no GPU.
std::vector<Span> queued_rows(const std::string& timeline)
{
  const Csv csv = read_csv(timeline);
  std::vector<Span> out;
  for (size_t i = 0; i < csv.rows.size(); ++i) {
    if (csv.cell(i, "state") != "waiting")
      continue;
    EXPECT_EQ(csv.cell(i, "active_gpus"), "0") << timeline << " row " << i;
    out.push_back({std::stod(csv.cell(i, "t_begin_s")), std::stod(csv.cell(i, "t_end_s"))});
  }
  return out;
}

// Two 2,048-GPU jobs on a cluster of their size with no spare: each failure sends the struck job
// back to the queue, its nodes to the fleet. While it waits for its failed node's repair it holds no
// GPU (the fleet's ledger charges it none), and the other job, requeued in turn, may be placed on
// the nodes it gave back. Under the restart policy the same jobs hold their nodes all along.
TEST(RequeuedJob, GivesItsNodesToTheFleetAndWaitsHoldingNone)
{
  TempDir dir;
  const auto requeue = fleetsim_command("run " + kRequeued + " --quiet --out " + (dir / "requeue"));
  ASSERT_EQ(requeue.code, 0) << requeue.text;
  const auto restart = fleetsim_command(
      "run " + kRequeued +
      " --set workload.jobs.a.recovery.policy=restart --set workload.jobs.b.recovery.policy=restart "
      "--quiet --out " +
      (dir / "restart"));
  ASSERT_EQ(restart.code, 0) << restart.text;
  const double horizon = 20 * 86400.0;
  const double gpus = 2048;
  const Csv jobs = read_csv(dir / "requeue/jobs.csv");
  ASSERT_EQ(jobs.rows.size(), 2U);
  long requeues = 0;
  std::vector<std::vector<Span>> queued;
  for (size_t i = 0; i < 2; ++i) {
    const std::string id = jobs.cell(i, "job_id");
    const nlohmann::json job = nlohmann::json::parse(read_file(dir / ("requeue/jobs/" + id + "/summary.json")));
    const long n = job["recovery"]["requeues"].get<long>();
    EXPECT_GT(n, 3) << id;
    // Every recovery requeues once (a failure during detection starts the detection again).
    EXPECT_LE(n, job["interruptions"]["unexpected"].get<long>()) << id;
    requeues += n;
    queued.push_back(queued_rows(dir / ("requeue/jobs/" + id + "/timeline.csv")));
    EXPECT_EQ(static_cast<long>(queued.back().size()), n) << id;
    double waited = 0;
    for (const Span& s : queued.back())
      waited += s.end - s.begin;
    EXPECT_NEAR(waited, job["time_breakdown_s"]["waiting"].get<double>(), 1e-3) << id;
    EXPECT_GT(waited, 3600.0) << id;  // it waited for repairs of 12 hours on average
    // The fleet charges it the GPU-hours it held: the window but its waits in the queue.
    EXPECT_NEAR(std::stod(jobs.cell(i, "allocated_gpu_h")), gpus * (horizon - waited) / 3600, 1e-2) << id;
    const double charged = std::stod(jobs.cell(i, "productive_gpu_h")) +
                           std::stod(jobs.cell(i, "lost_checkpoint_gpu_h")) +
                           std::stod(jobs.cell(i, "lost_startup_gpu_h")) +
                           std::stod(jobs.cell(i, "lost_failures_gpu_h")) + std::stod(jobs.cell(i, "lost_other_gpu_h"));
    EXPECT_NEAR(charged, std::stod(jobs.cell(i, "allocated_gpu_h")), 0.1) << id;
  }
  const nlohmann::json fleet = nlohmann::json::parse(read_file(dir / "requeue/summary.json"));
  EXPECT_EQ(fleet["requeues"].get<long>(), requeues);
  // With no free node and no spare, a job placed while the other waited in the queue took nodes the
  // other gave back: one job's wait ends inside the other's.
  long placed_on_the_others = 0;
  for (size_t x = 0; x < 2; ++x)
    for (const Span& waits : queued[x])
      for (const Span& placed : queued[1 - x])
        if (waits.end > waits.begin && placed.end >= waits.begin && placed.end < waits.end)
          ++placed_on_the_others;
  EXPECT_GT(placed_on_the_others, 0);

  // Under the restart policy each job holds its GPUs for the whole window, its waits included.
  const Csv held = read_csv(dir / "restart/jobs.csv");
  double allocated_requeue = 0;
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_NEAR(std::stod(held.cell(i, "allocated_gpu_h")), gpus * horizon / 3600, 1e-2);
    allocated_requeue += std::stod(jobs.cell(i, "allocated_gpu_h"));
    const nlohmann::json job = nlohmann::json::parse(
        read_file(dir / ("restart/jobs/" + held.cell(i, "job_id") + "/summary.json")));
    EXPECT_FALSE(job["recovery"].contains("requeues"));
  }
  EXPECT_LT(allocated_requeue, 2 * gpus * horizon / 3600 - 24 * gpus);
}

// The replay's job has no queue: requeued, it gives its nodes back and waits, holding none, until
// idle nodes can hold all of it (with no spare, its failed node's return), then restarts.
TEST(RequeuedJob, InTheReplayWaitsUntilIdleNodesCanHoldIt)
{
  TempDir dir;
  const std::string llama3 = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/llama3_405b_16k.yaml";
  const auto out = fleetsim_command("run " + llama3 +
                                    " --set recovery.policy=requeue --set spares.nodes=0 --set repair.time=1h "
                                    "--set run.duration=10d --set run.step_model=analytic --quiet --out " +
                                    (dir / "out"));
  ASSERT_EQ(out.code, 0) << out.text;
  const nlohmann::json job = nlohmann::json::parse(read_file(dir / "out/summary.json"));
  EXPECT_EQ(job["recovery"]["policy"], "requeue");
  const long n = job["recovery"]["requeues"].get<long>();
  EXPECT_GT(n, 30);
  EXPECT_LE(n, job["interruptions"]["unexpected"].get<long>());
  // A failure of a node waits for that node; a failure of the job (software) finds its own nodes
  // idle at once, and shows no wait.
  const std::vector<Span> queued = queued_rows(dir / "out/timeline.csv");
  EXPECT_GT(queued.size(), 10U);
  EXPECT_LT(static_cast<long>(queued.size()), n);
  double waited = 0;
  for (const Span& s : queued) {
    EXPECT_GT(s.end, s.begin);
    waited += s.end - s.begin;
  }
  EXPECT_NEAR(waited, job["time_breakdown_s"]["waiting"].get<double>(), 1e-3);
}

}  // namespace
