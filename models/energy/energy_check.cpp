#include "energy_check.hpp"

#include "models/core/invariant.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <variant>

namespace fleetsim::models::energy {
namespace {

constexpr const char* kInvariant = "energy accounting closes";
constexpr double kRel = 1e-9;  // the header says why
constexpr auto kCompute = static_cast<size_t>(GpuState::Compute);
constexpr auto kCommunicate = static_cast<size_t>(GpuState::Communicate);
constexpr auto kIdle = static_cast<size_t>(GpuState::Idle);
constexpr auto kCheckpoint = static_cast<size_t>(GpuState::Checkpoint);
constexpr auto kOff = static_cast<size_t>(GpuState::Off);
constexpr size_t kStates = kGpuStates;

bool near(double got, double want) { return std::fabs(got - want) <= kRel * (std::fabs(want) + 1.0); }

/// Each state's draw under the power limit and the floor's extra burn for a job GPU in it; a powered
/// GPU's share of its node; the network's joules per byte.
struct StateDraws {
  std::array<double, kStates> w{};
  std::array<double, kStates> floor_extra{};
  double node_per_gpu = 0;
  double scale_up_per_byte = 0;
  double scale_out_per_byte = 0;
  StateDraws(const PowerSpec& p, int gpus_per_node)
      : node_per_gpu(p.node_w / gpus_per_node),
        scale_up_per_byte(8 * p.scale_up_j_per_bit),
        scale_out_per_byte(8 * p.scale_out_j_per_bit)
  {
    for (size_t s = 0; s < kStates; ++s) {
      const double limit = p.gpu_power_limit_w;
      w[s] = limit > 0 ? std::min(p.gpu_w[s], limit) : p.gpu_w[s];
      floor_extra[s] = s == kOff || p.power_floor_w <= w[s] ? 0.0 : p.power_floor_w - w[s];
    }
  }
};

/// One row as this check computes it. (A PowerDraw holds the draw, but none of its functions is
/// called on it: they are the account's.)
struct Expected {
  GpuMix gpus{};  // the cluster's GPUs by state
  PowerDraw w;
  double facility_w = 0;
};

/// The storage's mean bytes per second over [a, b): zero before the first rate, the last one on.
class StorageLoad {
public:
  explicit StorageLoad(const std::vector<StorageRate>& rates) : rates_(rates) {}
  double mean(double a, double b)
  {
    if (b <= a)
      return 0;
    while (next_ < rates_.size() && rates_[next_].t <= a)
      ++next_;  // rates_[next_ - 1] is in force at a
    double bytes = 0;
    double from = a;
    for (size_t k = next_; from < b; ++k) {
      const double to = k < rates_.size() ? std::min(b, rates_[k].t) : b;
      if (k > 0 && to > from)
        bytes += rates_[k - 1].bytes_per_s * (to - from);
      from = to;
    }
    return bytes / (b - a);
  }

private:
  const std::vector<StorageRate>& rates_;
  size_t next_ = 0;
};

bool trains(Phase p) { return p == Phase::Training || p == Phase::Warmup; }

/// The job's GPUs of a row by state, and their bytes per second on each link class.
struct JobLoad {
  std::array<double, kStates> gpus{};
  double scale_up_bps = 0;
  double scale_out_bps = 0;
};

JobLoad job_load(const TimelineRow& row, const ReplayPower& in)
{
  JobLoad j;
  const double active = static_cast<double>(row.active_gpus);
  switch (row.phase) {
    case Phase::Training:
    case Phase::Warmup: {
      const double step = row.step_time > 0 ? row.step_time : 1;
      const double computing = std::clamp(in.compute_s / step, 0.0, 1.0);
      j.gpus[kCompute] = active * computing;
      j.gpus[kCommunicate] = active * (1 - computing);
      j.scale_up_bps = active * in.traffic.scale_up_bytes / step;
      j.scale_out_bps = active * in.traffic.scale_out_bytes / step;
      break;
    }
    case Phase::Checkpoint: j.gpus[kCheckpoint] = active; break;
    case Phase::Detection: j.gpus[kCommunicate] = active; break;
    default: j.gpus[kIdle] = active; break;
  }
  return j;
}

/// A staggered restart: the share of the job's load not yet up, on average over a row of `dt` s.
double ramp_share(const std::vector<TimelineRow>& rows, size_t r, double stagger, double dt)
{
  if (stagger <= 0 || r == 0 || rows[r].phase != Phase::Warmup || trains(rows[r - 1].phase) || dt <= 0)
    return 0;
  return dt >= stagger ? stagger / (2 * dt) : 1 - dt / (2 * stagger);
}

bool floor_holds(Phase p)
{
  return trains(p) || p == Phase::Checkpoint || p == Phase::Detection || p == Phase::Reload || p == Phase::DataStall;
}

Expected expect_row(const std::vector<TimelineRow>& rows, size_t r, double down, double storage_bps,
                    const ReplayPower& in, const StateDraws& draws)
{
  const TimelineRow& row = rows[r];
  const PowerSpec& p = in.spec;
  JobLoad job = job_load(row, in);
  const double active = static_cast<double>(row.active_gpus);
  if (const double share = ramp_share(rows, r, p.restart_stagger_s, row.t_end - row.t_begin); share > 0) {
    for (double& n : job.gpus)
      n *= 1 - share;
    job.gpus[kIdle] += active * share;
    job.scale_up_bps *= 1 - share;
    job.scale_out_bps *= 1 - share;
  }
  const auto cluster = static_cast<double>(in.cluster_gpus);
  const double off = std::min(down, std::max(0.0, cluster - active));
  Expected x;
  x.gpus = job.gpus;
  x.gpus[kOff] += off;
  x.gpus[kIdle] += std::max(0.0, cluster - active - off);
  double it = 0;
  for (size_t s = 0; s < kStates; ++s) {
    x.w.gpu_w[s] = x.gpus[s] * draws.w[s];
    it += x.w.gpu_w[s];
  }
  if (floor_holds(row.phase))
    for (size_t s = 0; s < kStates; ++s)
      x.w.floor_w += job.gpus[s] * draws.floor_extra[s];
  x.w.node_w = (cluster - off) * draws.node_per_gpu;
  x.w.network_w = draws.scale_up_per_byte * job.scale_up_bps + draws.scale_out_per_byte * job.scale_out_bps;
  x.w.storage_w = p.storage_w + storage_bps * p.storage_j_per_byte;
  it += x.w.floor_w + x.w.node_w + x.w.network_w + x.w.storage_w;
  x.w.overhead_w = it * (p.pue - 1);
  x.facility_w = it * p.pue;
  return x;
}

void differs(const std::string& where, const char* what, double got, double want)
{
  check_invariant(near(got, want), kInvariant, [&] {
    return where + ": " + what + " is " + std::to_string(got) + " in the account, " + std::to_string(want) +
           " from the inputs";
  });
}

/// Names the first term of row r that differs by more than kRel of itself, or says that they do
/// together (compare_row found them to).
[[noreturn]] void row_differs(const EnergyReport& e, size_t r, const Expected& x, double cumulative)
{
  const std::string where = "timeline row " + std::to_string(r);
  const GpuMix& g = e.gpus[r];
  const PowerDraw& d = e.rows[r];
  differs(where, "the GPUs computing", g[kCompute], x.gpus[kCompute]);
  differs(where, "the GPUs communicating", g[kCommunicate], x.gpus[kCommunicate]);
  differs(where, "the GPUs idle", g[kIdle], x.gpus[kIdle]);
  differs(where, "the GPUs checkpointing", g[kCheckpoint], x.gpus[kCheckpoint]);
  differs(where, "the GPUs off", g[kOff], x.gpus[kOff]);
  differs(where, "the computing GPUs' draw (W)", d.gpu_w[kCompute], x.w.gpu_w[kCompute]);
  differs(where, "the communicating GPUs' draw (W)", d.gpu_w[kCommunicate], x.w.gpu_w[kCommunicate]);
  differs(where, "the idle GPUs' draw (W)", d.gpu_w[kIdle], x.w.gpu_w[kIdle]);
  differs(where, "the checkpointing GPUs' draw (W)", d.gpu_w[kCheckpoint], x.w.gpu_w[kCheckpoint]);
  differs(where, "the off GPUs' draw (W)", d.gpu_w[kOff], x.w.gpu_w[kOff]);
  differs(where, "the power floor's draw (W)", d.floor_w, x.w.floor_w);
  differs(where, "the nodes' draw (W)", d.node_w, x.w.node_w);
  differs(where, "the network's draw (W)", d.network_w, x.w.network_w);
  differs(where, "the storage's draw (W)", d.storage_w, x.w.storage_w);
  differs(where, "the cooling and power delivery overhead (W)", d.overhead_w, x.w.overhead_w);
  differs(where, "the energy so far (J)", e.energy_j[r], cumulative);
  throw InvariantViolation(kInvariant, where +
                                           ": the GPU counts or the draws differ from the inputs' by more than "
                                           "1e-9 of the cluster or of the facility's draw, together");
}

/// The account's row r against the expected one; `cumulative`: the expected energy to the row's end.
/// The GPU counts' differences, summed, against the cluster's GPUs, the components' against the
/// facility's draw, each to kRel; row_differs() then names a term that differs.
void compare_row(const EnergyReport& e, size_t r, const Expected& x, double cumulative, double cluster)
{
  const GpuMix& g = e.gpus[r];
  const PowerDraw& d = e.rows[r];
  const double counted = g[kCompute] + g[kCommunicate] + g[kIdle] + g[kCheckpoint] + g[kOff];
  check_invariant(near(counted, cluster), kInvariant, [&] {
    return "timeline row " + std::to_string(r) + ": " + std::to_string(counted) +
           " GPUs in some state, but the cluster has " + std::to_string(cluster);
  });
  double gpus = 0;
  double watts = 0;
  for (size_t s = 0; s < kStates; ++s) {
    gpus += std::fabs(g[s] - x.gpus[s]);
    watts += std::fabs(d.gpu_w[s] - x.w.gpu_w[s]);
  }
  watts += std::fabs(d.floor_w - x.w.floor_w) + std::fabs(d.node_w - x.w.node_w) +
           std::fabs(d.network_w - x.w.network_w) + std::fabs(d.storage_w - x.w.storage_w) +
           std::fabs(d.overhead_w - x.w.overhead_w);
  const bool ok = (gpus <= kRel * (cluster + 1)) & (watts <= kRel * (x.facility_w + 1)) &
                  near(e.energy_j[r], cumulative);
  if (!ok) [[unlikely]]
    row_differs(e, r, x, cumulative);
}

}  // namespace

void check_energy_account(const EnergyReport& e, const GoodputReport& report, const TraceLog& log,
                          const ReplayPower& in)
{
  const std::vector<TimelineRow>& rows = report.timeline;
  check_invariant(e.rows.size() == rows.size() && e.gpus.size() == rows.size() && e.energy_j.size() == rows.size(),
                  kInvariant, [&] {
                    return std::to_string(rows.size()) + " timeline rows, but the account has " +
                           std::to_string(e.rows.size()) + " draws, " + std::to_string(e.gpus.size()) +
                           " GPU counts and " + std::to_string(e.energy_j.size()) + " energies";
                  });
  const StateDraws draws(in.spec, in.gpus_per_node);
  const auto cluster = static_cast<double>(in.cluster_gpus);
  StorageLoad storage(in.storage);
  PowerDraw run;  // J, by component
  double cumulative = 0;
  double peak = 0;
  double down = 0;  // GPUs unexpected failures took down since the job last trained
  size_t next = 0;  // in the log
  for (size_t r = 0; r < rows.size(); ++r) {
    // The trace records a failure after the segment it ends, before the next: rows follow the
    // log's segments in order.
    for (; next < log.size(); ++next) {
      if (const auto* i = std::get_if<Interruption>(&log[next]); i != nullptr && !i->planned)
        down += static_cast<double>(i->gpus_down);
      else if (std::holds_alternative<PhaseSegment>(log[next])) {
        ++next;
        break;
      }
    }
    if (trains(rows[r].phase))
      down = 0;
    const double dt = rows[r].t_end - rows[r].t_begin;
    const Expected x = expect_row(rows, r, down, storage.mean(rows[r].t_begin, rows[r].t_end), in, draws);
    cumulative += x.facility_w * dt;
    compare_row(e, r, x, cumulative, cluster);
    for (size_t s = 0; s < kStates; ++s)
      run.gpu_w[s] += x.w.gpu_w[s] * dt;
    run.floor_w += x.w.floor_w * dt;
    run.node_w += x.w.node_w * dt;
    run.network_w += x.w.network_w * dt;
    run.storage_w += x.w.storage_w * dt;
    run.overhead_w += x.w.overhead_w * dt;
    peak = std::max(peak, x.facility_w);
  }
  const std::string where = "over the run";
  const PowerDraw& j = e.energy;
  differs(where, "the computing GPUs' energy (J)", j.gpu_w[kCompute], run.gpu_w[kCompute]);
  differs(where, "the communicating GPUs' energy (J)", j.gpu_w[kCommunicate], run.gpu_w[kCommunicate]);
  differs(where, "the idle GPUs' energy (J)", j.gpu_w[kIdle], run.gpu_w[kIdle]);
  differs(where, "the checkpointing GPUs' energy (J)", j.gpu_w[kCheckpoint], run.gpu_w[kCheckpoint]);
  differs(where, "the off GPUs' energy (J)", j.gpu_w[kOff], run.gpu_w[kOff]);
  differs(where, "the power floor's energy (J)", j.floor_w, run.floor_w);
  differs(where, "the nodes' energy (J)", j.node_w, run.node_w);
  differs(where, "the network's energy (J)", j.network_w, run.network_w);
  differs(where, "the storage's energy (J)", j.storage_w, run.storage_w);
  differs(where, "the cooling and power delivery overhead's energy (J)", j.overhead_w, run.overhead_w);
  differs(where, "the facility's energy (J)", j.facility(), cumulative);
  differs(where, "the mean draw (W)", e.mean_w, report.elapsed > 0 ? cumulative / report.elapsed : 0.0);
  differs(where, "the peak draw (W)", e.peak_w, peak);
}

}  // namespace fleetsim::models::energy
