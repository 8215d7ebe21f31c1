// Data loading from the shared storage: the loader's batch reads share the servers with the job's
// own checkpoint drains, and when they cannot keep up the job stalls in data_stall.
#include "replay_outputs.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

namespace fleetsim::testing {
namespace {

// no_failures (1,024 GPUs, 1M-token batches, a 9.402 s step) reading 500 KB per token: 524 GB per
// step, 5.2 s alone at 100 GB/s. Its asynchronous 10 TB checkpoint drains through the same 100 GB/s
// servers, so while one drains the loader gets half: 10.49 s per batch, 1.08 s more than a step.
std::vector<std::string> small_storage()
{
  return {"checkpoint.strategy=async", "checkpoint.state_per_gpu=10GB", "data.bytes_per_token=500KB",
          "data.prefetch_steps=1", "storage.bandwidth=100GB/s", "run.duration=1d"};
}

constexpr double kStep = 9.40231477078807;
constexpr double kBatch = 500e3 * 1048576;

TEST(DataLoading, StorageTooSmallForTheCheckpointBurstStallsTheLoaderDuringWrites)
{
  auto r = run_child({no_failures(), small_storage(), 1, true});
  ASSERT_TRUE(r.ok) << r.error;
  // Drain windows: from the end of a checkpoint's pause to its drained event.
  std::vector<std::pair<double, double>> drains;
  double pause_end = -1;
  for (const auto& e : events_of(r.events)) {
    if (e.event == "checkpoint" && e.outcome == "completed")
      pause_end = e.t + e.duration;
    if (e.event == "checkpoint_drained" && pause_end >= 0)
      drains.emplace_back(pause_end, e.t);
  }
  ASSERT_GT(drains.size(), 10U);
  double stalled = 0;
  long stalls = 0;
  size_t w = 0;
  for (const auto& row : timeline_rows(r.timeline)) {
    if (row.state != "data_stall")
      continue;
    ++stalls;
    stalled += row.length();
    while (w < drains.size() && drains[w].second < row.t0 - kPrinted)
      ++w;
    ASSERT_LT(w, drains.size()) << "stall at " << row.t0 << " after the last drain";
    EXPECT_GE(row.t0, drains[w].first - kPrinted) << "stall at " << row.t0 << " with no write draining";
    // A step's batch at half the servers, less the step it overlapped.
    EXPECT_NEAR(row.length(), kBatch / 50e9 - kStep, 1e-3) << "stall at " << row.t0;
  }
  EXPECT_GT(stalls, 100);
  EXPECT_NEAR(num(r.summary, "time_breakdown_s", "data_stall"), stalled, 1e-3 * stalled);
  EXPECT_NEAR(num(r.summary, "lost_time_by_cause_s", "data_stall"), stalled, 1e-3 * stalled);
}

TEST(DataLoading, StorageSizedForTheBurstOrSynchronousWritesDoNotStall)
{
  auto big_sets = small_storage();
  big_sets.push_back("storage.bandwidth=1TB/s");  // reads and writes no longer contend
  auto big = run_child({no_failures(), big_sets, 1, false});
  auto sync_sets = small_storage();
  sync_sets.push_back("checkpoint.strategy=sync");  // training pauses while it writes: no demand
  auto sync = run_child({no_failures(), sync_sets, 1, false});
  ASSERT_TRUE(big.ok) << big.error;
  ASSERT_TRUE(sync.ok) << sync.error;
  EXPECT_EQ(num(big.summary, "time_breakdown_s", "data_stall"), 0);
  EXPECT_EQ(num(sync.summary, "time_breakdown_s", "data_stall"), 0);
  // The same run with loading but no contention trains as much as without loading at all.
  auto none_sets = big_sets;
  none_sets.push_back("data.bytes_per_token=0B");
  // (without loading, a prefetch depth is not read: it would be refused)
  none_sets.erase(std::find(none_sets.begin(), none_sets.end(), "data.prefetch_steps=1"));
  auto none = run_child({no_failures(), none_sets, 1, false});
  ASSERT_TRUE(none.ok) << none.error;
  EXPECT_EQ(big.summary["steps_trained"], none.summary["steps_trained"]);
}

TEST(DataLoading, ALoaderTheStorageCannotFeedAloneStallsEveryStep)
{
  // 1.5 MB per token: 1.57 TB per step at 100 GB/s is 15.7 s, longer than the 9.4 s step.
  auto sets = small_storage();
  sets.push_back("data.bytes_per_token=1500KB");
  sets.push_back("checkpoint.strategy=sync");
  sets.push_back("checkpoint.interval=2d");  // no checkpoint pause lets the loader catch up
  auto r = run_child({no_failures(), sets, 1, false});
  ASSERT_TRUE(r.ok) << r.error;
  const double stall = num(r.summary, "time_breakdown_s", "data_stall");
  const double productive = num(r.summary, "time_breakdown_s", "productive");
  // Data-bound: each step lasts a batch read, of which the step's compute is the productive part.
  EXPECT_NEAR(stall / productive, (1500e3 * 1048576 / 100e9 - kStep) / kStep, 1e-3);
}

}  // namespace
}  // namespace fleetsim::testing
