// Regressions found by reviewing the recovery and straggler-state code: each test is the reproduction
// that showed the defect, with the property the defect broke.
#include "replay_outputs.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace fleetsim::testing {
namespace {

std::string lemons() { return scenario_path("scenarios/lemon_retirement.yaml"); }
std::string llama3_recovery() { return scenario_path("scenarios/llama3_recovery.yaml"); }

TEST(RecoveryRegressions, AFailureWhileTheJobWaitsForNodesIsAnInterruption)
{
  // in_memory with no spares: a failure while the job waits for repairs may destroy the last copy of a
  // shard. It used to go unrecorded, so the accounting kept progress the job no longer had.
  auto r = run_child(
      {lemons(),
       {"recovery.policy=in_memory", "repair.time=2h", "failures.causes.gpu_fault.mtbf=120d",
        "failures.causes.host_fault.mtbf=60d", "lemons.retire_after=0", "spares.nodes=0", "run.duration=30d"},
       1,
       true});
  ASSERT_TRUE(r.ok) << r.error;
  long during_waiting = 0;
  for (const auto& e : events_of(r.events))
    during_waiting += e.event == "failure" && e.during == "waiting" ? 1 : 0;
  EXPECT_GT(during_waiting, 0);
  // A waiting phase cut short by such a failure is marked interrupted, and recovery starts again.
  long interrupted_waits = 0;
  for (const auto& row : timeline_rows(r.timeline))
    interrupted_waits += row.state == "waiting" && row.interrupted ? 1 : 0;
  EXPECT_EQ(interrupted_waits, during_waiting);
}

TEST(RecoveryRegressions, APlannedStopRightAfterAMemoryRestoreCheckpointsInsteadOfLosingWork)
{
  auto r = run_child({llama3_recovery(), {"run.step_model=analytic", "recovery.policy=in_memory"}, 1, true});
  ASSERT_TRUE(r.ok) << r.error;
  long planned = 0;
  for (const auto& e : events_of(r.events))
    if (e.event == "planned_interruption") {
      ++planned;
      EXPECT_EQ(e.duration, 0) << "planned stop at " << e.t << " lost work";
    }
  EXPECT_GT(planned, 40);
}

TEST(RecoveryRegressions, AnElasticJobTrainsOnlyOnWholeReplicas)
{
  // A failure of idle nodes during the checkpointed stop of a regrow used to leave a hole in the job,
  // which then trained at full width with a slot empty.
  auto r = run_child({lemons(),
                      {"recovery.policy=elastic", "repair.time=30min", "failures.causes.host_fault.mtbf=2d",
                       "lemons.retire_after=0", "run.duration=30d"},
                      2,
                      true});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_GT(r.summary["recovery"]["regrows"].get<long>(), 0);
  for (const auto& row : timeline_rows(r.timeline)) {
    if (row.training() && row.length() > 0) {
      EXPECT_EQ(row.active_gpus % 128, 0) << "training at " << row.t0 << " on " << row.active_gpus << " GPUs";
    }
  }
}

TEST(RecoveryRegressions, EveryPersistentStragglerIsDrainedEvenIfItFailsFirst)
{
  // A slow node that failed before its drain check came back from repair still slow and was never
  // checked again.
  auto r = run_child(
      {lemons(),
       {"stragglers.persistent_fraction=0.03", "stragglers.persistent_speed=0.5", "stragglers.drain_below=0.8",
        "stragglers.drain_after=10d", "failures.causes.host_fault.mtbf=20d", "lemons.fraction=0", "spares.nodes=40",
        "repair.distribution=fixed", "repair.time=5d", "run.duration=60d"},
       1,
       true});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.summary["recovery"]["drains"].get<long>(), r.summary["stragglers"]["persistent_nodes"].get<long>());
  const auto rows = timeline_rows(r.timeline);
  double uniform = 0;
  for (const auto& row : rows)
    uniform = row.training() ? (uniform == 0 ? row.step : std::min(uniform, row.step)) : uniform;
  EXPECT_NEAR(rows.back().step, uniform, kPrinted);  // the job ends at the uniform step
}

TEST(RecoveryRegressions, NoCheckpointCompletesWhileStorageIsOut)
{
  auto r = run_child({llama3_recovery(),
                      {"run.step_model=analytic", "recovery.policy=in_memory", "recovery.memory_copies=1",
                       "failures.causes.dependency.scope=storage", "failures.causes.dependency.count=40",
                       "failures.causes.dependency.repair=3h", "checkpoint.interval=5min"},
                      1,
                      true});
  ASSERT_TRUE(r.ok) << r.error;
  std::vector<std::pair<double, double>> outages;
  const auto events = events_of(r.events);
  for (const auto& e : events)
    if (e.event == "failure" && e.cause == "dependency")
      outages.emplace_back(e.t, e.t + 3 * 3600.0);
  ASSERT_GT(outages.size(), 10u);
  long checkpoints = 0;
  for (const auto& e : events) {
    if (e.event != "checkpoint" || e.outcome != "completed")
      continue;
    ++checkpoints;
    const double done = e.t + e.duration;
    for (const auto& [from, to] : outages)
      EXPECT_FALSE(done > from + kPrinted && done < to - kPrinted) << "checkpoint completed at " << done;
  }
  EXPECT_GT(checkpoints, 1000);
}

TEST(RecoveryRegressions, EpisodesAboveTheDrainThresholdNeverDrainWhateverTheGeneration)
{
  // A node's accelerator generation is not a slowdown to drain: draining cannot change it. Episodes at
  // 0.75 stay above the 0.7 threshold on A100 nodes (generation 0.315) as on H100 nodes. (The defect
  // the review found, drain checks re-armed during a recovery that fired after the episode had ended
  // and counted the generation, shows only as a 5-10 % excess of drains here; it was verified with the
  // review's reproduction, not by this test.)
  auto run = [](bool with_old_nodes, double episode_speed) {
    std::vector<std::string> sets = {"run.step_model=analytic", "stragglers.episode_interval=30d",
                                     "stragglers.episode_speed=" + std::to_string(episode_speed),
                                     "stragglers.drain_below=0.7"};
    if (with_old_nodes) {
      sets.emplace_back("heterogeneous.fraction=0.25");
      sets.emplace_back("heterogeneous.balance=micro_batches");
    }
    return ChildRun{llama3_recovery(), sets, 1, false};
  };
  auto runs = run_children({run(false, 0.75), run(true, 0.75), run(true, 0.6)});
  for (const auto& r : runs)
    ASSERT_TRUE(r.ok) << r.error;
  EXPECT_GT(runs[1].summary["recovery"]["slowdown_episodes"].get<long>(), 1000);
  EXPECT_EQ(runs[0].summary["recovery"]["drains"].get<long>(), 0);
  EXPECT_EQ(runs[1].summary["recovery"]["drains"].get<long>(), 0);
  EXPECT_GT(runs[2].summary["recovery"]["drains"].get<long>(), 0);  // episodes below the threshold still drain
}

}  // namespace
}  // namespace fleetsim::testing
