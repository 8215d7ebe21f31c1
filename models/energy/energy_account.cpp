#include "energy_account.hpp"

#include "energy_check.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace fleetsim::models::energy {
namespace {

constexpr auto kCompute = static_cast<size_t>(GpuState::Compute);
constexpr auto kCommunicate = static_cast<size_t>(GpuState::Communicate);
constexpr auto kIdle = static_cast<size_t>(GpuState::Idle);
constexpr auto kCheckpoint = static_cast<size_t>(GpuState::Checkpoint);
constexpr auto kOff = static_cast<size_t>(GpuState::Off);

bool trains(Phase p) { return p == Phase::Training || p == Phase::Warmup; }

/// The storage's mean throughput over [a, b): the rates are a step function, walked once.
class StorageCursor {
public:
  explicit StorageCursor(const std::vector<StorageRate>& rates) : rates_(rates) {}
  double mean(double a, double b)
  {
    if (rates_.empty() || b <= a)
      return 0;
    while (i_ + 1 < rates_.size() && rates_[i_ + 1].t <= a)
      ++i_;
    double bytes = 0;
    for (size_t j = i_; j < rates_.size() && rates_[j].t < b; ++j) {
      const double from = std::max(a, rates_[j].t);
      const double to = j + 1 < rates_.size() ? std::min(b, rates_[j + 1].t) : b;
      if (to > from)
        bytes += rates_[j].bytes_per_s * (to - from);
    }
    return bytes / (b - a);
  }

private:
  const std::vector<StorageRate>& rates_;
  size_t i_ = 0;
};

/// What the row's GPUs do, and what it moves.
Activity row_activity(const TimelineRow& row, const ReplayPower& in, double down, double storage_bps)
{
  Activity a;
  const double active = static_cast<double>(row.active_gpus);
  const Phase p = row.phase;
  if (trains(p)) {
    const double step = row.step_time > 0 ? row.step_time : 1;
    const double f = std::clamp(in.compute_s / step, 0.0, 1.0);
    a.job[kCompute] = active * f;
    a.job[kCommunicate] = active * (1 - f);
    a.scale_up_bps = active * in.traffic.scale_up_bytes / step;
    a.scale_out_bps = active * in.traffic.scale_out_bytes / step;
  } else if (p == Phase::Checkpoint) {
    a.job[kCheckpoint] = active;
  } else if (p == Phase::Detection) {
    a.job[kCommunicate] = active;
  } else {
    a.job[kIdle] = active;
  }
  a.floor_held = trains(p) || p == Phase::Checkpoint || p == Phase::Detection || p == Phase::Reload ||
                 p == Phase::DataStall;
  const double cluster = static_cast<double>(in.cluster_gpus);
  a.other[kOff] = std::min(down, std::max(0.0, cluster - active));
  a.other[kIdle] = std::max(0.0, cluster - active - a.other[kOff]);
  a.nodes = (cluster - a.other[kOff]) / in.gpus_per_node;
  a.storage_bps = storage_bps;
  return a;
}

/// What changed the draw between two rows: an interruption at the boundary, else the phases.
const char* swing_cause(Phase from, Phase to, const Interruption* at)
{
  if (at != nullptr)
    return at->planned ? "maintenance" : "failure";
  if (from == Phase::Checkpoint || to == Phase::Checkpoint)
    return "checkpoint";
  if (from == Phase::Planned || to == Phase::Planned)
    return "maintenance";
  if (from == Phase::DataStall || to == Phase::DataStall)
    return "data_stall";
  if (trains(to))
    return "restart";
  return "recovery";
}

/// Tallies the swings into the report. A replay swings at nearly every row, from a handful of
/// causes: each cause's entry of by_cause is looked up once, by its name's literal, and a Swing (and
/// its string) is only made for the few that enter the largest.
class SwingTally {
public:
  explicit SwingTally(EnergyReport& e) : e_(e) {}

  void note(double t, double delta_w, Phase from, Phase to, const char* cause, double ramp_s)
  {
    SwingStats& st = stats(cause);
    ++st.count;
    const double size = std::fabs(delta_w);
    const double rate = size / ramp_s;
    st.max_ramp_w_per_s = std::max(st.max_ramp_w_per_s, rate);
    if (rate > e_.fastest_ramp_w_per_s) {
      e_.fastest_ramp_w_per_s = rate;
      e_.fastest_ramp_t = t;
      e_.fastest_ramp_cause = cause;
    }
    if (size > st.max_w) {
      st.max_w = size;
      st.t_max = t;
    }
    auto bigger = [](const Swing& x, const Swing& y) { return std::fabs(x.delta_w) > std::fabs(y.delta_w); };
    if (e_.largest.size() < kLargestSwings || size > std::fabs(e_.largest.back().delta_w)) {
      Swing s{t, delta_w, from, to, cause, ramp_s};
      e_.largest.insert(std::upper_bound(e_.largest.begin(), e_.largest.end(), s, bigger), std::move(s));
      if (e_.largest.size() > kLargestSwings)
        e_.largest.pop_back();
    }
  }

private:
  SwingStats& stats(const char* cause)
  {
    for (const auto& [name, st] : seen_)
      if (name == cause)
        return *st;
    return *seen_.emplace_back(cause, &e_.by_cause[cause]).second;  // map nodes do not move
  }

  EnergyReport& e_;
  std::vector<std::pair<const char*, SwingStats*>> seen_;
};

/// The step's own swing and the fastest ramp, once the rows are known.
void finish(EnergyReport& e, const ReplayPower& in)
{
  const PowerSpec& p = in.spec;
  const double low = std::max(gpu_draw(p, GpuState::Communicate), p.power_floor_w);
  e.step_swing_w = std::max(0.0, gpu_draw(p, GpuState::Compute) - low) * static_cast<double>(in.job_gpus) * p.pue;
  if (const double step_rate = e.step_swing_w / p.ramp_s; step_rate >= e.fastest_ramp_w_per_s) {
    e.fastest_ramp_w_per_s = step_rate;
    e.fastest_ramp_t = 0;
    e.fastest_ramp_cause = "step";
  }
  e.mean_w = e.elapsed > 0 ? e.energy.facility() / e.elapsed : 0;
}

/// The stagger when row r starts a staggered restart's ramp (0: it does not).
double stagger_in_row(const std::vector<TimelineRow>& rows, size_t r, const PowerSpec& p)
{
  if (p.restart_stagger_s <= 0 || r == 0 || rows[r].phase != Phase::Warmup || trains(rows[r - 1].phase))
    return 0;
  return p.restart_stagger_s;
}

/// `level` with its job's load ramping up linearly over `ramp` s from the start of a row of
/// `length` s: on average ramp / (2 length) of the job's GPUs still idle, and their traffic not yet
/// sent; a row cut short by a failure (length < ramp) reached only length / ramp of the load.
Activity ramped(Activity level, double ramp, double length)
{
  const double share = length <= 0 ? 0 : length >= ramp ? ramp / (2 * length) : 1 - length / (2 * ramp);
  double job = 0;
  for (double& n : level.job) {
    job += n;
    n *= 1 - share;
  }
  level.job[kIdle] += job * share;
  level.scale_up_bps *= 1 - share;
  level.scale_out_bps *= 1 - share;
  return level;
}

}  // namespace

EnergyReport account_energy(const GoodputReport& report, const TraceLog& log, const ReplayPower& in)
{
  EnergyReport e;
  e.elapsed = report.elapsed;
  e.rows.reserve(report.timeline.size());
  e.gpus.reserve(report.timeline.size());
  e.energy_j.reserve(report.timeline.size());
  e.carbon_kg.reserve(report.timeline.size());
  std::vector<const Interruption*> interruptions;
  for (const auto& rec : log)
    if (const auto* i = std::get_if<Interruption>(&rec))
      interruptions.push_back(i);
  Activity idle;
  idle.other[kIdle] = static_cast<double>(in.cluster_gpus);
  idle.nodes = static_cast<double>(in.cluster_gpus) / in.gpus_per_node;
  const double idle_w = draw(in.spec, idle).facility();
  size_t next = 0;
  double down = 0;
  double cumulative = 0;
  double before_w = 0;  // the load the previous row settled at
  StorageCursor storage(in.storage);
  SwingTally swings(e);
  for (size_t r = 0; r < report.timeline.size(); ++r) {
    const TimelineRow& row = report.timeline[r];
    const Interruption* at = nullptr;  // an interruption at the row's start
    while (next < interruptions.size() && interruptions[next]->t <= row.t_begin) {
      at = interruptions[next++];
      if (!at->planned)
        down += static_cast<double>(at->gpus_down);
    }
    if (trains(row.phase))
      down = 0;
    const double dt = row.t_end - row.t_begin;
    const Activity level = row_activity(row, in, down, storage.mean(row.t_begin, row.t_end));
    const double stagger = stagger_in_row(report.timeline, r, in.spec);
    const Activity a = stagger > 0 ? ramped(level, stagger, dt) : level;
    const PowerDraw d = draw(in.spec, a);
    const double facility_w = d.facility();
    // Swings compare the load each row settles at (a ramped row's once its groups are up).
    const double level_w = stagger > 0 ? draw(in.spec, level).facility() : facility_w;
    const double ramp_s = stagger > 0 ? stagger : in.spec.ramp_s;
    e.energy += d.scaled(dt);
    cumulative += facility_w * dt;
    if (in.grid != nullptr && !in.grid->empty())
      e.operational_kg += in.grid->operational_kg(facility_w, row.t_begin, row.t_end);
    e.carbon_kg.push_back(e.operational_kg);
    if (e.rows.empty())  // from the cluster idling before the job starts
      swings.note(row.t_begin, level_w - idle_w, Phase::Waiting, row.phase, "start", ramp_s);
    else if (level_w != before_w)
      swings.note(row.t_begin, level_w - before_w, report.timeline[r - 1].phase, row.phase,
                  swing_cause(report.timeline[r - 1].phase, row.phase, at), ramp_s);
    before_w = level_w;
    if (facility_w > e.peak_w) {
      e.peak_w = facility_w;
      e.peak_t = row.t_begin;
      e.peak_phase = row.phase;
    }
    e.rows.push_back(d);
    GpuMix& gpus = e.gpus.emplace_back();
    for (size_t i = 0; i < gpus.size(); ++i)
      gpus[i] = a.job[i] + a.other[i];
    e.energy_j.push_back(cumulative);
  }
  Activity all;
  all.job[kCompute] = static_cast<double>(in.job_gpus);
  all.other[kIdle] = static_cast<double>(std::max(0L, in.cluster_gpus - in.job_gpus));
  all.nodes = static_cast<double>(in.cluster_gpus) / in.gpus_per_node;
  e.peak_instant_w = draw(in.spec, all).facility();
  e.compute_fraction = in.step_time > 0 ? std::clamp(in.compute_s / in.step_time, 0.0, 1.0) : 0.0;
  finish(e, in);
  check_energy_account(e, report, log, in);
  return e;
}

}  // namespace fleetsim::models::energy
