// Failure scopes (link failures seen by the watchdog, pods) and heterogeneous (mixed-generation)
// fleets in the run-level replay, checked against models/resilience/failure_model.hpp and models/resilience/node_pool.hpp.
#include "replay_outputs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fleetsim::testing {
namespace {
TEST(FailureScopes, LinkFailuresHangTheJobUntilTheWatchdog)
{
  // A link cause on no_failures.yaml's 128 nodes at a 5-day MTBF per link: ~180 failures a week,
  // one in six during the detection of the previous one.
  const std::vector<std::string> link{"failures.causes.link_flap.scope=link", "failures.causes.link_flap.mtbf=5d"};
  auto with = [&](std::vector<std::string> extra) {
    auto s = link;
    s.insert(s.end(), extra.begin(), extra.end());
    return s;
  };
  struct Case {
    const char* what;
    std::vector<std::string> sets;
    std::map<std::string, double> detection;  // by cause
    std::map<std::string, long> gpus_down;
  };
  const std::vector<Case> cases{
      {"auto: the watchdog's default 10 min", link, {{"link_flap", 600}}, {{"link_flap", 8}}},
      {"auto: recovery.watchdog_timeout",
       with({"recovery.watchdog_timeout=7min"}),
       {{"link_flap", 420}},
       {{"link_flap", 8}}},
      {"health_check: recovery.detection",
       with({"recovery.detection=3min", "failures.causes.link_flap.detected_by=health_check"}),
       {{"link_flap", 180}},
       {{"link_flap", 8}}},
      // (a detected_by beside it is not read: the loader refuses it, tests/simulator/scenario/key_usage_test.cpp)
      {"a cause's own detection wins over its scope's watchdog",
       with({"failures.causes.link_flap.detection=90s"}),
       {{"link_flap", 90}},
       {{"link_flap", 8}}},
      {"watchdog for a GPU cause; auto for a node cause",
       {"recovery.watchdog_timeout=7min", "recovery.detection=3min", "failures.causes.xid.scope=gpu",
        "failures.causes.xid.mtbf=300d", "failures.causes.xid.detected_by=watchdog", "failures.causes.host.scope=node",
        "failures.causes.host.mtbf=20d"},
       {{"xid", 420}, {"host", 180}},
       {{"xid", 1}, {"host", 8}}},
  };
  std::vector<ChildRun> child;
  for (const auto& cs : cases)
    child.push_back({no_failures(), cs.sets, 1, true});
  auto runs = run_children(child);
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& cs = cases[k];
    SCOPED_TRACE(cs.what);
    const auto& r = runs[k];
    ASSERT_TRUE(r.ok) << r.error;
    const auto events = events_of(r.events);
    std::map<std::string, long> failures;
    long cut_short = 0;
    for (size_t i = 0; i < events.size(); ++i) {
      const Event& e = events[i];
      if (e.event != "failure")
        continue;
      ASSERT_TRUE(cs.detection.count(e.cause)) << e.cause;
      ++failures[e.cause];
      EXPECT_EQ(e.gpus_down, cs.gpus_down.at(e.cause)) << e.component;
      const std::string scope = e.component.substr(0, e.component.find(':'));
      const long index = std::stol(e.component.substr(e.component.find(':') + 1));
      if (cs.gpus_down.at(e.cause) == 1) {
        EXPECT_EQ(scope, "gpu");
        EXPECT_LT(index, 1024);
      } else {
        EXPECT_TRUE(scope == (e.cause == "link_flap" ? "link" : "node")) << e.component;
        EXPECT_LT(index, 128);
      }
      // The detection segment starts at the failure and lasts the cause's detection delay, unless
      // the next failure cuts it short.
      ASSERT_LT(i + 1, events.size());
      const Event& d = events[i + 1];
      ASSERT_EQ(d.event, "detection") << "after the failure at " << e.t;
      EXPECT_NEAR(d.t, e.t, kPrinted);
      if (d.outcome == "completed") {
        EXPECT_NEAR(d.duration, cs.detection.at(e.cause), kPrinted) << "failure at " << e.t;
      } else {
        ++cut_short;
        EXPECT_EQ(d.outcome, "interrupted");
        EXPECT_LT(d.duration, cs.detection.at(e.cause) + kPrinted);
        ASSERT_LT(i + 2, events.size());
        EXPECT_EQ(events[i + 2].event, "failure");
        EXPECT_NEAR(events[i + 2].t, d.t + d.duration, kPrinted);
      }
    }
    for (const auto& [cause, expected] : cs.detection) {
      (void)expected;
      EXPECT_GT(failures[cause], 5) << cause;
      EXPECT_EQ(r.summary["interruptions"]["by_cause"].value(cause, -1L), failures[cause]) << cause;
    }
    if (k == 0) {
      EXPECT_GT(cut_short, 0) << "at this rate some failures strike during the watchdog wait";
      // The expected count: 128 links / 5 d x 7 d.
      EXPECT_NEAR(num(r.summary["interruptions"]["expected_by_cause"], "link_flap"), 128 * 7 / 5.0, 1e-9);
    }
  }
}

TEST(FailureScopes, PodFailuresTakeDownAWholePod)
{
  // Llama 3: 2,048 nodes in pods of 3,072 GPUs (384 nodes): 16,384 / 3,072 rounds up to 6 pods, the
  // last one holding the remaining 1,024 GPUs. With no spares and a 1 h repair, the job waits after
  // every pod failure for its 384 nodes to come back (the last of them, ~ln 384 h = 6 h).
  auto l3 = llama3_without_failures();
  l3.insert(l3.end(), {"planned.count=0", "spares.nodes=0", "repair.time=1h", "failures.causes.pod_fabric.scope=pod",
                       "failures.causes.pod_fabric.count=20"});
  // Without network.pod_size the pod is the whole job.
  const std::vector<std::string> one_pod{"failures.causes.pod_fabric.scope=pod", "failures.causes.pod_fabric.mtbf=1d"};
  auto runs = run_children({{llama3(), l3, 1, true}, {no_failures(), one_pod, 1, true}});
  {
    const auto& r = runs[0];
    ASSERT_TRUE(r.ok) << r.error;
    const auto events = events_of(r.events);
    std::set<long> pods;
    long failures = 0, waits = 0;
    double waited = 0;
    for (size_t i = 0; i < events.size(); ++i) {
      const Event& e = events[i];
      if (e.event == "waiting") {
        ++waits;
        waited += e.duration;
      }
      if (e.event != "failure")
        continue;
      ++failures;
      ASSERT_EQ(e.cause, "pod_fabric");
      ASSERT_EQ(e.component.rfind("pod:", 0), 0u) << e.component;
      const long pod = std::stol(e.component.substr(4));
      EXPECT_GE(pod, 0);
      EXPECT_LT(pod, 6);
      pods.insert(pod);
      EXPECT_EQ(e.gpus_down, pod < 5 ? 3072 : 16384 - 5 * 3072) << e.component;
      // Detection (recovery.detection, 2 min), then a wait for the pod's nodes.
      ASSERT_LT(i + 2, events.size());
      if (events[i + 1].event == "detection" && events[i + 1].outcome == "completed") {
        EXPECT_NEAR(events[i + 1].duration, 120, kPrinted);
        EXPECT_EQ(events[i + 2].event, "waiting") << "after the pod failure at " << e.t;
      }
    }
    EXPECT_GT(failures, 8);
    EXPECT_GE(pods.size(), 3u);
    EXPECT_EQ(r.summary["interruptions"]["by_cause"].value("pod_fabric", -1L), failures);
    EXPECT_GT(num(r.summary, "time_breakdown_s", "waiting"), 0);
    EXPECT_NEAR(num(r.summary, "time_breakdown_s", "waiting"), waited, 1e-3);
    EXPECT_GE(num(r.summary, "recovery", "spares_exhausted"), waits);
    ASSERT_GT(waits, 0);
    // The last of 384 (or 128) exponential 1 h repairs: H_384 = 6.5 h (H_128 = 5.4 h), less the
    // 2 min detection.
    EXPECT_GT(waited / waits / 3600, 4.0);
    EXPECT_LT(waited / waits / 3600, 9.0);
    // Each pod failure sends its nodes to repair: 384 (128 for the last pod), fewer when some of
    // them are still in repair.
    EXPECT_GT(num(r.summary, "recovery", "repairs"), 128.0 * failures);
  }
  {
    const auto& r = runs[1];
    ASSERT_TRUE(r.ok) << r.error;
    long failures = 0;
    for (const auto& e : events_of(r.events))
      if (e.event == "failure") {
        ++failures;
        EXPECT_EQ(e.component, "pod:0");
        EXPECT_EQ(e.gpus_down, 1024);
      }
    EXPECT_GT(failures, 0);
    EXPECT_NEAR(num(r.summary["interruptions"]["expected_by_cause"], "pod_fabric"), 7.0, 1e-9)
        << "one pod: one component";
  }
}

// ------------------------------------------------------------------------------------------------
// Heterogeneous fleets.

TEST(Heterogeneous, OldGenerationNodesSetTheStepAsTheModelPredicts)
{
  // Llama 3 (analytic step, the replay's failures kept): a quarter of the 2,048 nodes are A100s at
  // 0.315 of an H100. A replica is TP 8 x PP 16 = 16 nodes, 128 replicas.
  //  - unbalanced: the slowest replica gates the step, compute stretches 1 / 0.315;
  //  - balanced, block: the 512 old nodes fill 32 replicas; shares in proportion to speed give a
  //    stretch 128 / (96 + 32 x 0.315);
  //  - balanced, spread: nearly every replica holds an old node; only the k replicas with none run
  //    faster, stretch 128 / (k + (128 - k) 0.315).
  // Failures do not change it: with no spares and instant repair the failed node takes its slot back.
  auto sets = [](const char* placement, const char* balance) {
    return std::vector<std::string>{"run.step_model=analytic", "heterogeneous.fraction=0.25",
                                    std::string("heterogeneous.placement=") + placement,
                                    std::string("heterogeneous.balance=") + balance};
  };
  auto runs = run_children({{llama3(), sets("block", "none"), 1, true},
                            {llama3(), sets("spread", "none"), 1, true},
                            {llama3(), sets("block", "micro_batches"), 1, true},
                            {llama3(), sets("spread", "micro_batches"), 1, true}});
  for (const auto& r : runs)
    ASSERT_TRUE(r.ok) << r.error;
  const double uniform = num(runs[0].summary, "step", "step_time_s");
  const double c = num(runs[0].summary, "step", "compute_fraction");
  const double unbalanced = step_at(uniform, c, 0.315);
  const double block_balanced = uniform * ((1 - c) + c * 128 / (96 + 32 * 0.315));
  auto mean_of = [](const ChildResult& r) { return num(r.summary, "heterogeneous", "mean_step_time_s"); };
  for (const auto& r : runs) {
    EXPECT_EQ(num(r.summary, "heterogeneous", "nodes"), 512);
    EXPECT_EQ(num(r.summary, "heterogeneous", "speed"), 0.315);
    EXPECT_GT(num(r.summary, "interruptions", "unexpected"), 300) << "the replay's failures are kept";
  }
  EXPECT_NEAR(mean_of(runs[0]), unbalanced, 1e-6 * unbalanced);
  EXPECT_NEAR(mean_of(runs[1]), unbalanced, 1e-6 * unbalanced);
  EXPECT_NEAR(mean_of(runs[2]), block_balanced, 1e-6 * block_balanced);
  const double spread = mean_of(runs[3]);
  EXPECT_GT(spread, block_balanced);
  EXPECT_LT(spread, unbalanced);
  EXPECT_GT(spread, 0.9 * unbalanced) << "spread old nodes leave few all-new replicas to balance with";
  const double stretch = (spread / uniform - (1 - c)) / c;
  const double k = (128 / stretch - 128 * 0.315) / (1 - 0.315);
  EXPECT_NEAR(k, std::round(k), 1e-6) << "a whole number of all-new replicas";
  EXPECT_GE(std::round(k), 1);
  EXPECT_EQ(runs[3].summary["heterogeneous"]["placement"], "spread");
  EXPECT_EQ(runs[3].summary["heterogeneous"]["balance"], "micro_batches");
  // Every training row that lasts runs at that step (the constant fleet: one value each).
  const double expected[] = {unbalanced, unbalanced, block_balanced, spread};
  for (size_t i = 0; i < runs.size(); ++i) {
    for (const auto& row : timeline_rows(runs[i].timeline)) {
      if (row.training() && row.length() > 0) {
        EXPECT_NEAR(row.step, expected[i], kPrinted) << "run " << i << ", row at " << row.t0;
      }
    }
  }
  // Tokens per productive second follow the step: balancing the block fleet trains 2.24x faster.
  auto rate = [](const ChildResult& r) {
    return num(r.summary, "tokens_trained") / num(r.summary, "time_breakdown_s", "productive");
  };
  EXPECT_NEAR(rate(runs[2]) / rate(runs[0]), unbalanced / block_balanced, 1e-6 * unbalanced / block_balanced);
}

TEST(Heterogeneous, AFailureThatChangesTheFleetSpeedLeavesNoEmptyTrainingRow)
{
  // Regression: a failure that takes down a node whose absence changes the step factor used to send
  // the job a Retime just before its Interrupt, which cut the last training row in two: the row that
  // trained said interrupted=0, and a zero-length row at a step the job never ran said interrupted=1
  // (Llama 3, spread balanced old nodes, seed 1, t = 455,875.66 s; no_failures.yaml with episodes and
  // node failures, seed 3, t = 69,520.57 s).
  auto runs = run_children({{llama3(),
                             {"run.step_model=analytic", "heterogeneous.fraction=0.25",
                              "heterogeneous.placement=spread", "heterogeneous.balance=micro_batches"},
                             1,
                             true},
                            {no_failures(),
                             {"run.duration=60d", "spares.nodes=3", "repair.time=3h", "failures.causes.host.scope=node",
                              "failures.causes.host.mtbf=10d", "stragglers.episode_interval=5d",
                              "stragglers.episode_duration=1h", "stragglers.episode_speed=0.6"},
                             3,
                             true}});
  for (const auto& r : runs) {
    ASSERT_TRUE(r.ok) << r.error;
    const auto rows = timeline_rows(r.timeline);
    long interrupted_training = 0;
    for (const Row& row : rows) {
      if (!row.training())
        continue;
      EXPECT_GT(row.length(), 0) << "zero-length training row at " << row.t0 << " (step " << row.step << " s)";
      interrupted_training += row.interrupted ? 1 : 0;
    }
    // Every failure during training cuts a row that trained.
    long during_training = 0;
    for (const auto& e : events_of(r.events))
      during_training += e.event == "failure" && e.during == "training" ? 1 : 0;
    EXPECT_GT(during_training, 0);
    EXPECT_EQ(interrupted_training, during_training);
  }
}

TEST(Heterogeneous, CheckpointIntervalIsTrainingTimeWithOldNodes)
{
  // Regression: checkpoint.interval is training time between checkpoints (docs/scenario-reference.md).
  // It used to be converted to steps once, with the expected straggler factor, which does not know the
  // old generation: an unbalanced heterogeneous Llama 3 fleet checkpointed after 1,551 s of training
  // instead of 10 min. The step count now follows the step time of the fleet's state.
  auto runs = run_children({{llama3(), {"run.step_model=analytic"}, 1, true},
                            {llama3(), {"run.step_model=analytic", "heterogeneous.fraction=0.25"}, 1, true}});
  for (size_t k = 0; k < runs.size(); ++k) {
    SCOPED_TRACE(k == 0 ? "uniform fleet" : "a quarter old nodes");
    const auto& r = runs[k];
    ASSERT_TRUE(r.ok) << r.error;
    const auto rows = timeline_rows(r.timeline);
    // Training rows that ran from a checkpoint (or restart) to the next checkpoint: their median.
    std::vector<double> stretches;
    for (size_t i = 1; i + 1 < rows.size(); ++i)
      if (rows[i].training() && !rows[i].interrupted && rows[i + 1].state == "checkpoint" &&
          rows[i - 1].state == "checkpoint")
        stretches.push_back(rows[i].length());
    ASSERT_GT(stretches.size(), 100u);
    std::nth_element(stretches.begin(), stretches.begin() + static_cast<long>(stretches.size() / 2), stretches.end());
    const double median = stretches[stretches.size() / 2];
    const double step = rows[rows.size() / 2].step;
    EXPECT_NEAR(median, 600, step) << "checkpoint.interval is 10 min of training; the step is " << step << " s";
  }
}

// ------------------------------------------------------------------------------------------------
// Determinism.

}  // namespace
}  // namespace fleetsim::testing
