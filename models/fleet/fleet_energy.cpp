#include "fleet_energy.hpp"

#include "models/invariant.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace fleetsim::models::fleet {

namespace {

using energy::GpuState;

constexpr size_t idx(GpuState s) { return static_cast<size_t>(s); }

bool close(double a, double b, double rel)
{
  return std::fabs(a - b) <= rel * std::max({1.0, std::fabs(a), std::fabs(b)});
}

// A job's GPU in state s: its draw under the power limit, raised to the floor while the job runs.
double held_draw(const energy::PowerSpec& p, GpuState s) { return std::max(energy::gpu_draw(p, s), p.power_floor_w); }

// Sums a draw's components in the order the output columns list them, not as PowerDraw does.
double column_sum(const energy::PowerDraw& d)
{
  double s = d.overhead_w + d.storage_w + d.network_w + d.node_w + d.floor_w;
  for (size_t i = d.gpu_w.size(); i-- > 0;)
    s += d.gpu_w[i];
  return s;
}

void check_row(const energy::PowerDraw& d, const energy::PowerSpec& p, size_t row)
{
  const double it = d.facility() - d.overhead_w;
  check_invariant(close(column_sum(d), d.facility(), 1e-9) && close(d.facility(), it * p.pue, 1e-9),
                  "fleet power: the components add up to the facility draw", [&] {
                    return "timeline row " + std::to_string(row) + ": components " + std::to_string(column_sum(d)) +
                           " W, facility " + std::to_string(d.facility()) + " W, IT x PUE " +
                           std::to_string(it * p.pue) + " W";
                  });
}

}  // namespace

energy::Activity row_activity(const FleetTimeline& t, size_t i, const FleetEnergyInputs& in, double storage_bps)
{
  const double n = static_cast<double>(in.gpus);
  const double down = t.mean(kDown, i);
  const double idle = t.mean(kIdle, i);
  const double spare = t.mean(kSpare, i);
  const double training = t.mean(kTraining, i);
  // Every GPU is held on an up node, idle, spare or down; a training GPU is a held one.
  const double held = n - down - idle - spare;
  const double tol = 1e-6 * std::max(1.0, n);
  check_invariant(held >= -tol && training <= held + tol, "fleet power: every GPU is in one state", [&] {
    return "timeline row " + std::to_string(i) + ": " + std::to_string(in.gpus) + " GPUs, " + std::to_string(down) +
           " down, " + std::to_string(idle) + " idle, " + std::to_string(spare) + " spare, " +
           std::to_string(training) + " training";
  });
  const double held_up = std::max(0.0, held);
  const double train = std::clamp(training, 0.0, held_up);
  energy::Activity a{};  // value-initialised: Activity's GPU mixes have no initialisers of their own
  a.job[idx(GpuState::Compute)] = in.compute_fraction * train;
  a.job[idx(GpuState::Communicate)] = (1 - in.compute_fraction) * train;
  a.job[idx(GpuState::Checkpoint)] = held_up - train;
  a.other[idx(GpuState::Idle)] = idle + spare;
  a.other[idx(GpuState::Off)] = down;
  a.floor_held = true;
  a.nodes = (n - down) / std::max(1, in.gpus_per_node);
  a.storage_bps = storage_bps;
  return a;
}

FleetEnergy fleet_energy(const FleetTimeline& t, const FleetEnergyInputs& in, const std::vector<double>& storage_bps)
{
  FleetEnergy e;
  e.rows.reserve(t.rows());
  for (size_t i = 0; i < t.rows(); ++i) {
    const double storage = i < storage_bps.size() ? storage_bps[i] : 0.0;
    const energy::PowerDraw d = energy::draw(in.power, row_activity(t, i, in, storage));
    check_row(d, in.power, i);
    const double t0 = t.row_start(i);
    const double len = t.row_length(i);
    FleetPowerRow row;
    row.draw = d;
    row.energy_j = d.facility() * len;
    if (in.carbon != nullptr && !in.carbon->empty())
      row.carbon_kg = in.carbon->operational_kg(d.facility(), t0, t0 + len);
    e.energy_j += d.scaled(len);
    e.facility_j += row.energy_j;
    e.carbon_kg += row.carbon_kg;
    if (d.facility() > e.peak_w) {
      e.peak_w = d.facility();
      e.peak_t = t0;
    }
    e.horizon += len;
    e.rows.push_back(row);
  }
  // The cumulative energy (row by row) against the sum of each component over the window.
  check_invariant(close(e.facility_j, e.energy_j.facility(), 1e-9), "fleet energy: the rows add up to the window", [&] {
    return "rows " + std::to_string(e.facility_j) + " J, components " + std::to_string(e.energy_j.facility()) + " J";
  });
  return e;
}

JobEnergy job_energy(const JobRecord& job, const FleetEnergyInputs& in)
{
  const energy::PowerSpec& p = in.power;
  const double f = in.compute_fraction;
  const double train_w = f * held_draw(p, GpuState::Compute) + (1 - f) * held_draw(p, GpuState::Communicate);
  const double hold_w = held_draw(p, GpuState::Checkpoint);
  const double node_w = p.node_w / std::max(1, in.gpus_per_node);
  const double held_s = job.time.allocated;
  const double train_s = std::min(job.training_gpu_s, held_s);
  JobEnergy out;
  out.energy_j = p.pue * (train_s * train_w + (held_s - train_s) * hold_w + held_s * node_w);
  // GPU-seconds x g/kWh x W = g x W s / kWh: / 3.6e6 for grams, / 1e3 more for kg.
  const double train_ci = std::min(job.training_gpu_s_ci, job.allocated_gpu_s_ci);
  out.carbon_kg =
      p.pue * (train_ci * train_w + (job.allocated_gpu_s_ci - train_ci) * hold_w + job.allocated_gpu_s_ci * node_w) /
      (energy::kJoulesPerKwh * 1e3);
  return out;
}

}  // namespace fleetsim::models::fleet
