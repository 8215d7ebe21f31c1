// The fleet's changing state in the run-level replay: slowdown episodes, the diurnal clock swing and
// draining slow nodes. Each test reads timeline.csv and events.csv and checks them against the
// closed-form model of models/step/stragglers.hpp.
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
// ------------------------------------------------------------------------------------------------
// Slowdown episodes, the diurnal swing, draining.

TEST(StragglerState, EpisodesSlowTheStepExactlyWhileANodeIsInOne)
{
  // no_failures.yaml: 128 nodes, no spares. No checkpoints in the window, so every second is
  // training and the slow share of training time is the share of time with at least one node in an
  // episode. Episodes arrive per node at rate 1/I and last D: at any instant the number of nodes in
  // one is Poisson with mean 128 D / I (M/G/infinity: for any duration distribution of mean D), so
  // P(at least one) = 1 - exp(-128 D / I) = 1 - exp(-0.711) = 0.509. Over 28 days the standard
  // error of the time share is 0.0074 for fixed durations and 0.010 for exponential ones.
  const double interval = 30 * 3600.0, duration = 600, window = 28 * kDay;
  std::vector<std::string> base{"run.duration=28d", "checkpoint.interval=100d", "stragglers.episode_interval=30h",
                                "stragglers.episode_duration=10min", "stragglers.episode_speed=0.5"};
  auto fixed = base, expo = base;
  fixed.push_back("stragglers.episode_distribution=fixed");
  expo.push_back("stragglers.episode_distribution=exponential");
  auto runs = run_children({{no_failures(), fixed, 1, true}, {no_failures(), expo, 2, true}});
  const double expected_share = 1 - std::exp(-128 * duration / interval);
  for (size_t k = 0; k < runs.size(); ++k) {
    SCOPED_TRACE(k == 0 ? "fixed durations" : "exponential durations");
    const auto& r = runs[k];
    ASSERT_TRUE(r.ok) << r.error;
    const double uniform = num(r.summary, "step", "step_time_s");
    const double c = num(r.summary, "step", "compute_fraction");
    ASSERT_GT(c, 0.1);
    ASSERT_LT(c, 0.9);
    const double slow = step_at(uniform, c, 0.5);
    const auto rows = timeline_rows(r.timeline);
    double training = 0, slowed = 0;
    std::vector<double> runs_s;  // lengths of the slow stretches (adjacent slow rows merged)
    bool in_slow = false;
    for (const auto& row : rows) {
      ASSERT_TRUE(row.training()) << "a failure-free run without checkpoints only trains: " << row.state;
      const bool is_uniform = std::fabs(row.step - uniform) <= kPrinted;
      const bool is_slow = std::fabs(row.step - slow) <= kPrinted;
      EXPECT_TRUE(is_uniform || is_slow) << "row at " << row.t0 << " runs at " << row.step << " s, neither the uniform "
                                         << uniform << " s nor the episode step " << slow << " s";
      training += row.length();
      if (is_slow) {
        slowed += row.length();
        if (in_slow)
          runs_s.back() += row.length();
        else
          runs_s.push_back(row.length());
      }
      in_slow = is_slow;
    }
    EXPECT_NEAR(training, window, 1e-3);
    const double share = slowed / training;
    EXPECT_NEAR(share, expected_share, 4 * (k == 0 ? 0.0074 : 0.010)) << "slow share of training time";
    // Episodes: Poisson with mean nodes x window / interval = 2,867 (sd 54). Given their number,
    // the share is tighter: 1 - exp(-episodes x D / window).
    const double episodes = num(r.summary, "recovery", "slowdown_episodes");
    EXPECT_NEAR(episodes, 128 * window / interval, 4 * std::sqrt(128 * window / interval));
    EXPECT_NEAR(share, 1 - std::exp(-episodes * duration / window), 0.01);
    EXPECT_EQ(num(r.summary, "recovery", "drains"), 0);
    // A slow stretch is a busy period of the episodes: it starts when an episode finds every node
    // at full speed, about 128 window / I x exp(-128 D / I) = 1,408 times.
    ASSERT_FALSE(runs_s.empty());
    const double busy = 128 * window / interval * std::exp(-128 * duration / interval);
    EXPECT_NEAR(static_cast<double>(runs_s.size()), busy, 0.1 * busy);
    const double shortest = *std::min_element(runs_s.begin(), runs_s.end() - 1);  // the last may be cut by the window
    if (k == 0) {
      EXPECT_GE(shortest, duration - 1e-3) << "a fixed-duration episode keeps the step slow for 10 min at least";
    } else {
      EXPECT_LT(shortest, duration) << "exponential episodes are often shorter than their mean";
    }
    // summary.json's mean step over training is the timeline's time-weighted mean.
    const double mean = mean_training_step(rows);
    EXPECT_NEAR(num(r.summary, "stragglers", "mean_step_time_s"), mean, 1e-6 * mean);
    EXPECT_NEAR(mean, uniform + share * (slow - uniform), 1e-6 * mean);
    // Nothing but the episodes slows the job: the expected factor has no persistent or transient part.
    EXPECT_DOUBLE_EQ(num(r.summary, "stragglers", "step_factor"), 1.0);
  }
}

TEST(StragglerState, DiurnalSwingFollowsTheClockPiecewise)
{
  // Clock speed 1 - A (1 + cos(2 pi (t - peak) / 1 d)) / 2, updated every diurnal_resolution:
  // a step's compute share runs at the clock of the latest update.
  struct Case {
    double amplitude, peak, resolution;
    std::vector<std::string> sets;
  };
  const std::vector<Case> cases{
      {0.02, 15 * 3600.0, 3600, {"stragglers.diurnal_amplitude=0.02"}},  // default peak 15 h, resolution 1 h
      {0.05,
       5 * 3600.0,
       1800,
       {"stragglers.diurnal_amplitude=0.05", "stragglers.diurnal_peak=5h", "stragglers.diurnal_resolution=30min",
        "run.duration=3d"}},
  };
  std::vector<ChildRun> child;
  for (const auto& cs : cases)
    child.push_back({no_failures(), cs.sets, 1, true});
  auto runs = run_children(child);
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case& cs = cases[k];
    SCOPED_TRACE("amplitude " + std::to_string(cs.amplitude));
    const auto& r = runs[k];
    ASSERT_TRUE(r.ok) << r.error;
    const double uniform = num(r.summary, "step", "step_time_s");
    const double c = num(r.summary, "step", "compute_fraction");
    const double A = cs.amplitude;
    auto clock = [&](double t) { return 1 - A * (1 + std::cos(kTwoPi * (t - cs.peak) / kDay)) / 2; };
    const auto rows = timeline_rows(r.timeline);
    double lo = 1e300, hi = 0;
    std::vector<double> slowest_starts;
    long checked = 0;
    for (const auto& row : rows) {
      if (!row.training())
        continue;
      // The last update at or before the row's start (or the one before it when the row starts on
      // the update instant and the update came second).
      const double tick = std::floor(row.t0 / cs.resolution + 1e-9) * cs.resolution;
      const double now = step_at(uniform, c, clock(tick));
      const double before = step_at(uniform, c, clock(tick - cs.resolution));
      EXPECT_TRUE(std::fabs(row.step - now) <= kPrinted ||
                  (row.length() < 1e-6 && std::fabs(row.step - before) <= kPrinted))
          << "row at " << row.t0 << ": " << row.step << " s, the clock at " << tick << " s gives " << now << " s";
      ++checked;
      lo = std::min(lo, row.step);
      hi = std::max(hi, row.step);
    }
    ASSERT_GT(checked, 100);
    const double slowest = step_at(uniform, c, 1 - A);
    // An update falls on the trough (peak - 12 h) and on the peak: both extremes are reached.
    EXPECT_NEAR(lo, uniform, kPrinted);
    EXPECT_NEAR(hi, slowest, kPrinted);
    for (const auto& row : rows) {
      if (row.training() && std::fabs(row.step - hi) <= kPrinted) {
        const double into_day = std::fmod(row.t0, kDay);
        EXPECT_GE(into_day, cs.peak - 1e-6) << "slowest row at " << row.t0;
        EXPECT_LT(into_day, cs.peak + cs.resolution + 1e-6) << "slowest row at " << row.t0;
      }
    }
    // Over whole days the mean clock slowdown is A / 2 (plus second order, c A^2 3/8 ~ 1e-4 here).
    const double mean = mean_training_step(rows);
    EXPECT_NEAR(mean / (uniform * (1 + c * A / 2)), 1.0, 1e-3);
    EXPECT_NEAR(num(r.summary, "stragglers", "mean_step_time_s"), mean, 1e-6 * mean);
    EXPECT_EQ(num(r.summary, "recovery", "slowdown_episodes"), 0);
    EXPECT_EQ(num(r.summary, "recovery", "drains"), 0);
  }
}

TEST(StragglerState, DrainingStopsASlowNodeAfterDrainAfter)
{
  // 2 h episodes at half speed on 132 nodes (128 in the job, 4 spares), one per node per 30 days:
  // ~74 episodes in 14 days. A node below 0.8 for 10 min is drained: the job finishes its step,
  // checkpoints, restarts without it (a spare takes its slot) and reloads.
  std::vector<std::string> sets{"run.duration=14d",
                                "spares.nodes=4",
                                "stragglers.episode_interval=30d",
                                "stragglers.episode_duration=2h",
                                "stragglers.episode_distribution=fixed",
                                "stragglers.episode_speed=0.5"};
  auto with_drain = sets;
  with_drain.push_back("stragglers.drain_below=0.8");
  with_drain.push_back("stragglers.drain_after=10min");  // (read only where nodes are drained)
  auto runs = run_children({{no_failures(), with_drain, 1, true}, {no_failures(), sets, 1, true}});
  ASSERT_TRUE(runs[0].ok) << runs[0].error;
  ASSERT_TRUE(runs[1].ok) << runs[1].error;
  const auto& r = runs[0];
  const double uniform = num(r.summary, "step", "step_time_s");
  const double c = num(r.summary, "step", "compute_fraction");
  const double slow = step_at(uniform, c, 0.5);
  const double ckpt = num(r.summary, "checkpoints", "write_time_s");
  const double drain_after = 600;
  const auto rows = timeline_rows(r.timeline);
  const auto events = events_of(r.events);

  // Every drain of a node in the job is a reconfiguration, followed at once by restart (recovery's
  // 10 min default), reload and warm-up.
  long drains = 0, linked = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    if (e.event != "reconfiguration")
      continue;
    ASSERT_EQ(e.cause, "straggler_drain");
    ++drains;
    EXPECT_EQ(e.component.rfind("node:", 0), 0u) << e.component;
    EXPECT_LT(std::stol(e.component.substr(5)), 132);
    EXPECT_EQ(e.during, "training");
    EXPECT_NEAR(e.duration, 0, kPrinted) << "a drain checkpoints first: no work is lost";
    // (When the drained node's slot finds no idle spare, the job first waits for a repair.)
    size_t next = i + 1;
    ASSERT_LT(next, events.size());
    EXPECT_NEAR(events[next].t, e.t, kPrinted);
    if (events[next].event == "waiting")
      ++next;
    ASSERT_LT(next + 2, events.size());
    EXPECT_EQ(events[next].event, "restart");
    EXPECT_NEAR(events[next].duration, 600, kPrinted);
    EXPECT_EQ(events[next + 1].event, "reload");
    EXPECT_EQ(events[next + 2].event, "warmup");
    // The slow stretch that ends here: slow training rows (checkpoints between them) back to the
    // last training row at the uniform step. The episode began between that row's end and the
    // first slow row's start; the drain came drain_after later, plus at most the rest of a step and
    // one checkpoint.
    long j = -1;
    for (long q = static_cast<long>(rows.size()) - 1; q >= 0; --q)
      if (rows[static_cast<size_t>(q)].t1 <= e.t + kPrinted) {
        j = q;
        break;
      }
    ASSERT_GE(j, 0);
    double onset = -1;
    double fast_end = -1;
    for (; j >= 0; --j) {
      const Row& row = rows[static_cast<size_t>(j)];
      if (row.state == "checkpoint")
        continue;
      if (row.training() && std::fabs(row.step - slow) <= kPrinted) {
        onset = row.t0;
        continue;
      }
      if (row.training() && std::fabs(row.step - uniform) <= kPrinted)
        fast_end = row.t1;
      break;  // a uniform row, or a recovery phase: the episode may have begun during it
    }
    ASSERT_GE(onset, 0) << "drain at " << e.t << " without a slow training row before it";
    if (fast_end < 0)
      continue;
    ++linked;
    EXPECT_GE(e.t - fast_end, drain_after - kPrinted) << "drain at " << e.t;
    EXPECT_LE(e.t - onset, drain_after + slow + ckpt + kPrinted) << "drain at " << e.t;
  }
  EXPECT_GT(drains, 30);
  EXPECT_GE(linked, drains * 8 / 10) << "most drains follow a single episode that began while the job trained";
  EXPECT_EQ(num(r.summary, "interruptions", "reconfigurations"), drains);
  EXPECT_EQ(num(r.summary, "interruptions", "unexpected"), 0);
  // Drains of idle spares count too, without touching the job.
  EXPECT_GE(num(r.summary, "recovery", "drains"), drains);
  EXPECT_LE(num(r.summary, "recovery", "drains"), num(r.summary, "recovery", "slowdown_episodes"));

  // No slow stretch outlives drain_after by more than a step and a checkpoint (an undrained
  // episode would keep the step slow for 2 h).
  double stretch_begin = -1, stretch_end = -1, longest = 0;
  for (const auto& row : rows) {
    if (row.state == "checkpoint")
      continue;
    if (row.training() && std::fabs(row.step - slow) <= kPrinted) {
      if (stretch_begin < 0)
        stretch_begin = row.t0;
      stretch_end = row.t1;
    } else {
      if (stretch_begin >= 0)
        longest = std::max(longest, stretch_end - stretch_begin);
      stretch_begin = -1;
    }
  }
  EXPECT_GT(longest, drain_after - 1);
  EXPECT_LE(longest, drain_after + slow + ckpt + kPrinted);

  // What draining buys: most of the straggler loss, for restarts charged to straggler_drain.
  const auto& lost = r.summary["lost_time_by_cause_s"];
  const auto& undrained = runs[1].summary["lost_time_by_cause_s"];
  EXPECT_EQ(num(runs[1].summary, "recovery", "drains"), 0);
  EXPECT_EQ(num(runs[1].summary, "recovery", "slowdown_episodes"), num(r.summary, "recovery", "slowdown_episodes"))
      << "the same seed draws the same episodes";
  EXPECT_LT(lost.value("stragglers", 0.0), 0.25 * undrained.at("stragglers").get<double>());
  const auto& b = r.summary["time_breakdown_s"];
  const double recovery = num(b, "restart") + num(b, "reload") + num(b, "warmup") + num(b, "waiting");
  EXPECT_NEAR(lost.at("straggler_drain").get<double>(), recovery, 1e-6 * recovery);
  EXPECT_NEAR(num(b, "restart"), 600.0 * drains, 1e-6);
}

TEST(StragglerState, PersistentStragglersAreDrainedTogetherAndComeBackHealthy)
{
  // round(0.03 x 128) = 4 nodes always at 0.7 < drain_below 0.8, all slow since the start. The first
  // check, 10 min in, drains all four in one checkpointed restart (not one restart each). With
  // drain_repair 0 a drained node is back at once, at full speed, and the job trains at the uniform
  // step from then on.
  auto r = run_child({no_failures(),
                      {"stragglers.persistent_fraction=0.03", "stragglers.persistent_speed=0.7",
                       "stragglers.drain_below=0.8", "stragglers.drain_repair=0s"},
                      1,
                      true});
  ASSERT_TRUE(r.ok) << r.error;
  const double uniform = num(r.summary, "step", "step_time_s");
  const double c = num(r.summary, "step", "compute_fraction");
  const double slow = step_at(uniform, c, 0.7);
  const double ckpt = num(r.summary, "checkpoints", "write_time_s");
  EXPECT_EQ(num(r.summary, "stragglers", "persistent_nodes"), 4);
  EXPECT_EQ(num(r.summary, "recovery", "drains"), 4);
  EXPECT_EQ(num(r.summary, "interruptions", "reconfigurations"), 1);
  std::vector<double> drains;
  for (const auto& e : events_of(r.events))
    if (e.event == "reconfiguration")
      drains.push_back(e.t);
  ASSERT_EQ(drains.size(), 1u);
  EXPECT_GE(drains[0], 600 - kPrinted);
  EXPECT_LE(drains[0], 600 + slow + ckpt + kPrinted);
  for (const auto& row : timeline_rows(r.timeline)) {
    if (!row.training() || row.length() == 0)
      continue;
    if (row.t0 < drains.back()) {
      EXPECT_NEAR(row.step, slow, kPrinted) << "row at " << row.t0;
    } else {
      EXPECT_NEAR(row.step, uniform, kPrinted) << "row at " << row.t0;
    }
  }
}

TEST(StragglerState, EpisodesDiurnalSwingAndDrainsAreDeterministic)
{
  // Everything that changes the fleet's speed, with failures, spares and repairs: one seed gives one
  // run, byte for byte (wall time aside); another seed another.
  const std::vector<std::string> sets{"run.duration=10d",
                                      "spares.nodes=3",
                                      "repair.time=3h",
                                      "failures.causes.host.scope=node",
                                      "failures.causes.host.mtbf=30d",
                                      "failures.causes.link_flap.scope=link",
                                      "failures.causes.link_flap.mtbf=40d",
                                      "stragglers.episode_interval=20d",
                                      "stragglers.episode_duration=1h",
                                      "stragglers.episode_speed=0.6",
                                      "stragglers.diurnal_amplitude=0.02",
                                      "stragglers.drain_below=0.7",
                                      "stragglers.drain_after=15min",
                                      "stragglers.drain_repair=2h",
                                      "stragglers.transient_probability=0.0001",
                                      "stragglers.transient_speed=0.5"};
  auto runs = run_children(
      {{no_failures(), sets, 3, true}, {no_failures(), sets, 3, true}, {no_failures(), sets, 4, true}});
  for (const auto& r : runs)
    ASSERT_TRUE(r.ok) << r.error;
  EXPECT_GT(num(runs[0].summary, "recovery", "drains"), 0);
  EXPECT_GT(num(runs[0].summary, "recovery", "slowdown_episodes"), 0);
  EXPECT_GT(num(runs[0].summary, "interruptions", "unexpected"), 0);
  EXPECT_EQ(without_wall_time(runs[0].summary_text), without_wall_time(runs[1].summary_text));
  EXPECT_EQ(runs[0].timeline, runs[1].timeline);
  EXPECT_EQ(runs[0].events, runs[1].events);
  EXPECT_NE(runs[0].events, runs[2].events);
  EXPECT_NE(runs[0].timeline, runs[2].timeline);
}

}  // namespace
}  // namespace fleetsim::testing
