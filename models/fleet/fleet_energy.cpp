#include "fleet_energy.hpp"

#include "fleet_energy_check.hpp"

#include <algorithm>

namespace fleetsim::models::fleet {

namespace {

using energy::GpuState;

constexpr size_t idx(GpuState s) { return static_cast<size_t>(s); }

// A job's GPU in state s: its draw under the power limit, raised to the floor while the job runs.
double held_draw(const energy::PowerSpec& p, GpuState s) { return std::max(energy::gpu_draw(p, s), p.power_floor_w); }

}  // namespace

energy::Activity row_activity(const FleetTimeline& t, size_t i, const FleetEnergyInputs& in, double storage_bps)
{
  const double n = static_cast<double>(in.gpus);
  const double down = t.mean(kDown, i);
  const double idle = t.mean(kIdle, i);
  const double spare = t.mean(kSpare, i);
  const double training = t.mean(kTraining, i);
  // Every GPU is held on an up node, idle, spare or down; a training GPU is a held one (checked, with
  // the jobs' allocated GPUs, by check_fleet_energy).
  const double held_up = std::max(0.0, n - down - idle - spare);
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
    const energy::Activity a = row_activity(t, i, in, storage);
    const energy::PowerDraw d = energy::draw(in.power, a);
    const double t0 = t.row_start(i);
    const double len = t.row_length(i);
    FleetPowerRow row;
    row.draw = d;
    for (size_t k = 0; k < row.gpus.size(); ++k)
      row.gpus[k] = a.job[k] + a.other[k];
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
  check_fleet_energy(e, t, in, storage_bps);
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
