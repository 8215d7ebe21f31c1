#include "fleet_energy_check.hpp"

#include "models/core/invariant.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace fleetsim::models::fleet {
namespace {

using energy::GpuMix;
using energy::GpuState;
using energy::PowerDraw;

constexpr const char* kInvariant = "fleet energy accounting closes";
constexpr const char* kClosure = "fleet power: every GPU is in one state";
constexpr double kRel = 1e-9;  // the header says why
constexpr auto kStates = static_cast<size_t>(energy::kGpuStates);
constexpr auto kCompute = static_cast<size_t>(GpuState::Compute);
constexpr auto kCommunicate = static_cast<size_t>(GpuState::Communicate);
constexpr auto kIdleState = static_cast<size_t>(GpuState::Idle);
constexpr auto kCheckpointState = static_cast<size_t>(GpuState::Checkpoint);
constexpr auto kOff = static_cast<size_t>(GpuState::Off);

bool near(double got, double want) { return std::fabs(got - want) <= kRel * (std::fabs(want) + 1.0); }

/// One row as this check computes it (a PowerDraw holds the draw; none of its functions is called).
struct Expected {
  GpuMix gpus{};
  PowerDraw w;
  double facility_w = 0;
};

/// The GPUs of row i by state, from the timeline's columns; throws if they do not close.
GpuMix expected_gpus(const FleetTimeline& t, size_t i, const FleetEnergyInputs& in)
{
  const auto n = static_cast<double>(in.gpus);
  const double down = t.mean(kDown, i);
  const double idle = t.mean(kIdle, i);
  const double spare = t.mean(kSpare, i);
  const double training = t.mean(kTraining, i);
  const double allocated = t.mean(kAllocated, i);
  const double held_up = n - down - idle - spare;  // on up nodes, neither free nor spare
  const double tol = kRel * (n + 1);
  check_invariant(
      held_up >= -tol && held_up <= allocated + tol && allocated <= held_up + down + tol && training <= held_up + tol,
      kClosure, [&] {
        return "timeline row " + std::to_string(i) + ": " + std::to_string(in.gpus) + " GPUs, " + std::to_string(down) +
               " down, " + std::to_string(idle) + " idle, " + std::to_string(spare) + " spare, so " +
               std::to_string(held_up) + " held on up nodes, but the jobs hold " + std::to_string(allocated) +
               " and train on " + std::to_string(training);
      });
  // Rounding can leave a held count a hair below zero, or training a hair above it: not a GPU.
  const double held = std::max(0.0, held_up);
  const double train = std::clamp(training, 0.0, held);
  GpuMix g{};
  g[kCompute] = in.compute_fraction * train;
  g[kCommunicate] = (1 - in.compute_fraction) * train;
  g[kCheckpointState] = held - train;
  g[kIdleState] = idle + spare;
  g[kOff] = down;
  return g;
}

Expected expect_row(const FleetTimeline& t, size_t i, const FleetEnergyInputs& in, double storage_bps)
{
  const energy::PowerSpec& p = in.power;
  Expected x;
  x.gpus = expected_gpus(t, i, in);
  double it = 0;
  for (size_t s = 0; s < kStates; ++s) {
    const double w = p.gpu_power_limit_w > 0 ? std::min(p.gpu_w[s], p.gpu_power_limit_w) : p.gpu_w[s];
    x.w.gpu_w[s] = x.gpus[s] * w;
    it += x.w.gpu_w[s];
    // Every held GPU (training or not) burns at least the floor; idle, spare and down ones do not.
    if (s != kIdleState && s != kOff && p.power_floor_w > w)
      x.w.floor_w += x.gpus[s] * (p.power_floor_w - w);
  }
  x.w.node_w = (static_cast<double>(in.gpus) - x.gpus[kOff]) * p.node_w / std::max(1, in.gpus_per_node);
  x.w.storage_w = p.storage_w + storage_bps * p.storage_j_per_byte;
  it += x.w.floor_w + x.w.node_w + x.w.storage_w;
  x.w.overhead_w = it * (p.pue - 1);
  x.facility_w = it * p.pue;
  return x;
}

void differs(const std::string& where, const char* what, double got, double want)
{
  check_invariant(near(got, want), kInvariant, [&] {
    return where + ": " + what + " is " + std::to_string(got) + " in the account, " + std::to_string(want) +
           " from the timeline";
  });
}

/// The account's row i against the expected one: its counts, its components and its energy.
void compare_row(const FleetPowerRow& row, size_t i, const Expected& x, double len, long gpus)
{
  const GpuMix& g = row.gpus;
  const PowerDraw& d = row.draw;
  const auto n = static_cast<double>(gpus);
  const double counted = g[kCompute] + g[kCommunicate] + g[kIdleState] + g[kCheckpointState] + g[kOff];
  double count_diff = 0;
  double draw_diff = 0;
  for (size_t s = 0; s < kStates; ++s) {
    count_diff += std::fabs(g[s] - x.gpus[s]);
    draw_diff += std::fabs(d.gpu_w[s] - x.w.gpu_w[s]);
  }
  draw_diff += std::fabs(d.floor_w - x.w.floor_w) + std::fabs(d.node_w - x.w.node_w) +
               std::fabs(d.network_w - x.w.network_w) + std::fabs(d.storage_w - x.w.storage_w) +
               std::fabs(d.overhead_w - x.w.overhead_w);
  if (near(counted, n) && count_diff <= kRel * (n + 1) && draw_diff <= kRel * (x.facility_w + 1) &&
      near(row.energy_j, x.facility_w * len)) [[likely]]
    return;
  const std::string where = "timeline row " + std::to_string(i);
  differs(where, "the GPUs in some state", counted, n);
  differs(where, "the GPUs computing", g[kCompute], x.gpus[kCompute]);
  differs(where, "the GPUs communicating", g[kCommunicate], x.gpus[kCommunicate]);
  differs(where, "the GPUs idle", g[kIdleState], x.gpus[kIdleState]);
  differs(where, "the GPUs held, not training", g[kCheckpointState], x.gpus[kCheckpointState]);
  differs(where, "the GPUs off", g[kOff], x.gpus[kOff]);
  differs(where, "the computing GPUs' draw (W)", d.gpu_w[kCompute], x.w.gpu_w[kCompute]);
  differs(where, "the communicating GPUs' draw (W)", d.gpu_w[kCommunicate], x.w.gpu_w[kCommunicate]);
  differs(where, "the idle GPUs' draw (W)", d.gpu_w[kIdleState], x.w.gpu_w[kIdleState]);
  differs(where, "the held GPUs' draw (W)", d.gpu_w[kCheckpointState], x.w.gpu_w[kCheckpointState]);
  differs(where, "the off GPUs' draw (W)", d.gpu_w[kOff], x.w.gpu_w[kOff]);
  differs(where, "the power floor's draw (W)", d.floor_w, x.w.floor_w);
  differs(where, "the nodes' draw (W)", d.node_w, x.w.node_w);
  differs(where, "the network's draw (W)", d.network_w, x.w.network_w);
  differs(where, "the storage's draw (W)", d.storage_w, x.w.storage_w);
  differs(where, "the cooling and power delivery overhead (W)", d.overhead_w, x.w.overhead_w);
  differs(where, "the row's energy (J)", row.energy_j, x.facility_w * len);
  throw InvariantViolation(kInvariant, where +
                                           ": the GPU counts or the draws differ from the timeline's by more "
                                           "than 1e-9 of the cluster or of the facility's draw, together");
}

}  // namespace

void check_fleet_energy(const FleetEnergy& e, const FleetTimeline& t, const FleetEnergyInputs& in,
                        const std::vector<double>& storage_bps)
{
  check_invariant(e.rows.size() == t.rows(), kInvariant, [&] {
    return std::to_string(t.rows()) + " timeline rows, but the account has " + std::to_string(e.rows.size());
  });
  PowerDraw window;  // J, by component
  double facility_j = 0;
  double peak = 0;
  for (size_t i = 0; i < t.rows(); ++i) {
    const Expected x = expect_row(t, i, in, i < storage_bps.size() ? storage_bps[i] : 0.0);
    const double len = t.row_length(i);
    compare_row(e.rows[i], i, x, len, in.gpus);
    for (size_t s = 0; s < kStates; ++s)
      window.gpu_w[s] += x.w.gpu_w[s] * len;
    window.floor_w += x.w.floor_w * len;
    window.node_w += x.w.node_w * len;
    window.storage_w += x.w.storage_w * len;
    window.overhead_w += x.w.overhead_w * len;
    facility_j += x.facility_w * len;
    peak = std::max(peak, x.facility_w);
  }
  const std::string where = "over the window";
  const PowerDraw& j = e.energy_j;
  differs(where, "the computing GPUs' energy (J)", j.gpu_w[kCompute], window.gpu_w[kCompute]);
  differs(where, "the communicating GPUs' energy (J)", j.gpu_w[kCommunicate], window.gpu_w[kCommunicate]);
  differs(where, "the idle GPUs' energy (J)", j.gpu_w[kIdleState], window.gpu_w[kIdleState]);
  differs(where, "the held GPUs' energy (J)", j.gpu_w[kCheckpointState], window.gpu_w[kCheckpointState]);
  differs(where, "the off GPUs' energy (J)", j.gpu_w[kOff], window.gpu_w[kOff]);
  differs(where, "the power floor's energy (J)", j.floor_w, window.floor_w);
  differs(where, "the nodes' energy (J)", j.node_w, window.node_w);
  differs(where, "the network's energy (J)", j.network_w, window.network_w);
  differs(where, "the storage's energy (J)", j.storage_w, window.storage_w);
  differs(where, "the cooling and power delivery overhead's energy (J)", j.overhead_w, window.overhead_w);
  differs(where, "the facility's energy, by component (J)", j.facility(), facility_j);
  differs(where, "the facility's energy, row by row (J)", e.facility_j, facility_j);
  differs(where, "the peak draw (W)", e.peak_w, peak);
}

}  // namespace fleetsim::models::fleet
