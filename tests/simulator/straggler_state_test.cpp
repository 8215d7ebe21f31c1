// The fleet's changing state in the run-level replay: slowdown episodes, the diurnal clock swing,
// draining slow nodes, link and pod failure scopes, and heterogeneous (mixed-generation) fleets.
// Each test reads timeline.csv and events.csv and checks them against the closed-form model of
// models/stragglers.hpp and models/node_pool.hpp.
#include "run_in_child.hpp"

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

constexpr double kDay = 86400;
constexpr double kTwoPi = 6.283185307179586;
// timeline.csv and events.csv print times with 6 decimals: two printed values that should be equal
// differ by up to 1e-6.
constexpr double kPrinted = 2e-6;

std::vector<std::string> cells_of(const std::string& line)
{
  std::vector<std::string> cells;
  std::stringstream ls(line);
  std::string cell;
  while (std::getline(ls, cell, ','))
    cells.push_back(cell);
  if (!line.empty() && line.back() == ',')
    cells.emplace_back();
  return cells;
}

struct Row {
  double t0 = 0, t1 = 0;
  std::string state;
  bool interrupted = false;
  long active_gpus = 0;
  double step = 0;
  [[nodiscard]] double length() const { return t1 - t0; }
  [[nodiscard]] bool training() const { return state == "training"; }
};

std::vector<Row> timeline_rows(const std::string& csv)
{
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "t_begin_s,t_end_s,state,interrupted,productive_s,steps,tokens,goodput,active_gpus,step_time_s");
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    const auto c = cells_of(line);
    if (c.size() != 10) {
      ADD_FAILURE() << "timeline row with " << c.size() << " cells: " << line;
      continue;
    }
    rows.push_back({std::stod(c[0]), std::stod(c[1]), c[2], c[3] == "1", std::stol(c[8]), std::stod(c[9])});
  }
  return rows;
}

struct Event {
  double t = 0;
  std::string event, cause, component, during;
  double duration = 0;
  std::string outcome;
  long gpus_down = -1;  // -1 on phase rows
};

std::vector<Event> events_of(const std::string& csv)
{
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "time_s,event,cause,component,during,duration_s,outcome,gpus_down");
  std::vector<Event> events;
  while (std::getline(in, line)) {
    const auto c = cells_of(line);
    if (c.size() != 8) {
      ADD_FAILURE() << "events row with " << c.size() << " cells: " << line;
      continue;
    }
    events.push_back({std::stod(c[0]), c[1], c[2], c[3], c[4], std::stod(c[5]), c[6],
                      c[7].empty() ? -1 : std::stol(c[7])});
  }
  return events;
}

double num(const nlohmann::json& j, const char* a, const char* b = nullptr)
{
  return b ? j.at(a).at(b).get<double>() : j.at(a).get<double>();
}

// The step of a job whose slowest node runs at `speed` (compute share c stretches, the rest does not).
double step_at(double uniform, double c, double speed) { return uniform * ((1 - c) + c / speed); }

// Time-weighted mean step time over training rows.
double mean_training_step(const std::vector<Row>& rows)
{
  double t = 0, w = 0;
  for (const auto& r : rows)
    if (r.training()) {
      t += r.length();
      w += r.length() * r.step;
    }
  return t > 0 ? w / t : 0;
}

std::string no_failures() { return scenario_path("scenarios/no_failures.yaml"); }
std::string llama3() { return scenario_path("scenarios/llama3_405b_16k.yaml"); }

// The 18 Llama 3 causes, silenced (count 0), for runs that add a cause of their own.
std::vector<std::string> llama3_without_failures()
{
  std::vector<std::string> sets{"run.step_model=analytic"};
  for (const char* c : {"faulty_gpu", "gpu_hbm3_memory", "software_bug", "network_switch_cable", "host_maintenance",
                        "gpu_sram_memory", "gpu_system_processor", "nic", "nccl_watchdog_timeouts",
                        "silent_data_corruption", "gpu_thermal_interface_sensor", "ssd", "power_supply",
                        "server_chassis", "io_expansion_board", "dependency", "cpu", "system_memory"})
    sets.push_back(std::string("failures.causes.") + c + ".count=0");
  return sets;
}

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
      {0.05, 5 * 3600.0, 1800,
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
      EXPECT_TRUE(std::fabs(row.step - now) <= kPrinted || (row.length() < 1e-6 && std::fabs(row.step - before) <= kPrinted))
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
                                "stragglers.episode_speed=0.5",
                                "stragglers.drain_after=10min"};
  auto with_drain = sets;
  with_drain.push_back("stragglers.drain_below=0.8");
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

TEST(StragglerState, PersistentStragglersAreDrainedAndComeBackHealthy)
{
  // round(0.03 x 128) = 4 nodes always at 0.7 < drain_below 0.8. Each is drained 10 min after it is
  // first seen slow; the drains of the others come due during the first restart and wait until the
  // job trains again, so the four go one restart apart. With drain_repair 0 a drained node is back
  // at once, at full speed, and the job trains at the uniform step from then on.
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
  EXPECT_EQ(num(r.summary, "interruptions", "reconfigurations"), 4);
  std::vector<double> drains;
  std::set<std::string> nodes;
  for (const auto& e : events_of(r.events))
    if (e.event == "reconfiguration") {
      drains.push_back(e.t);
      nodes.insert(e.component);
    }
  ASSERT_EQ(drains.size(), 4u);
  EXPECT_EQ(nodes.size(), 4u) << "four different nodes";
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

// ------------------------------------------------------------------------------------------------
// Failure scopes: a node's link, a pod.

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
      {"auto: recovery.watchdog_timeout", with({"recovery.watchdog_timeout=7min"}), {{"link_flap", 420}}, {{"link_flap", 8}}},
      {"health_check: recovery.detection",
       with({"recovery.detection=3min", "failures.causes.link_flap.detected_by=health_check"}),
       {{"link_flap", 180}},
       {{"link_flap", 8}}},
      {"a cause's own detection wins",
       with({"failures.causes.link_flap.detected_by=watchdog", "failures.causes.link_flap.detection=90s"}),
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
  auto runs = run_children(
      {{llama3(),
        {"run.step_model=analytic", "heterogeneous.fraction=0.25", "heterogeneous.placement=spread",
         "heterogeneous.balance=micro_batches"},
        1,
        true},
       {no_failures(),
        {"run.duration=60d", "spares.nodes=3", "repair.time=3h", "failures.causes.host.scope=node",
         "failures.causes.host.mtbf=10d", "stragglers.episode_interval=5d", "stragglers.episode_duration=1h",
         "stragglers.episode_speed=0.6"},
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
  auto runs = run_children({{no_failures(), sets, 3, true}, {no_failures(), sets, 3, true}, {no_failures(), sets, 4, true}});
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
