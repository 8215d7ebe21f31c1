#pragma once
// A fleet's power, energy and carbon (docs/models/energy.md), from its timeline and its jobs'
// records, SimGrid-free.
//
// Each timeline row is a time average; its draw is models::energy::draw of the row's activity:
//   training GPUs       compute_fraction of them computing, the rest communicating (an ASSUMPTION:
//                       the fleet does not simulate steps; power.fleet_compute_fraction);
//   held, not training  restarting, checkpointing, restoring, detecting a failure, writing a
//                       preemption checkpoint: the checkpoint draw (their processes hold the GPUs
//                       but do not compute); counted as the GPUs on up nodes not idle, spare or
//                       training (a detecting job also holds GPUs of its failed node: those are off);
//   idle and spare      the idle draw;      down (in repair)   off;
//   nodes               the powered ones: (GPUs - down GPUs) / GPUs per node;
//   storage             the row's mean rate written and read (when the fleet's storage is
//                       modelled) and the storage's fixed draw; network: not modelled (0 B/s).
// The power floor holds for the jobs' GPUs (training or held), never for idle ones.
//
// A job's energy (jobs.csv energy_mwh) is the draw of the GPUs it holds, by what they do, plus its
// nodes' share, times the PUE:
//   pue x [ training_gpu_s x (f x max(compute, floor) + (1 - f) x max(communicate, floor))
//         + (allocated_gpu_s - training_gpu_s) x max(checkpoint, floor)
//         + allocated_gpu_s x node_w / gpus_per_node ]
// with every draw under the GPU power limit; its carbon is the same sum with each GPU-second
// weighted by the grid's intensity when it was spent. Idle GPUs, idle nodes and the storage are the
// fleet's, charged to no job.

#include "fleet_ledger.hpp"
#include "fleet_state.hpp"

#include "models/energy/carbon.hpp"
#include "models/energy/power_model.hpp"

#include <vector>

namespace fleetsim::models::fleet {

struct FleetEnergyInputs {
  energy::PowerSpec power;
  double compute_fraction = 0.7;  // of a training GPU's time spent computing (the rest communicating)
  long gpus = 0;
  int gpus_per_node = 8;
  const energy::CarbonProfile* carbon = nullptr;  // may be null or empty
};

/// One timeline row: its mean draw, its energy and its carbon.
struct FleetPowerRow {
  energy::PowerDraw draw;  // W, the row's mean
  energy::GpuMix gpus{};   // the fleet's GPUs by state (time averages), for the check
  double energy_j = 0;     // facility
  double carbon_kg = 0;    // operational (0 without a profile)
};

struct FleetEnergy {
  std::vector<FleetPowerRow> rows;
  energy::PowerDraw energy_j;  // by component: joules (a draw's fields, each x seconds)
  double facility_j = 0;
  double carbon_kg = 0;
  double peak_w = 0;  // the highest row mean of the facility draw ...
  double peak_t = 0;  // ... and its row's start
  double horizon = 0;
};

/// The activity of timeline row i (storage_bps: its mean bytes per second written and read).
[[nodiscard]] energy::Activity row_activity(const FleetTimeline& t, size_t i, const FleetEnergyInputs& in,
                                            double storage_bps);

/// Every row's draw, energy and carbon, and their sums. `storage_bps` has a rate per row, or is
/// empty. Checks the account against a computation of its own from the timeline's columns
/// (models::InvariantViolation, fleet_energy_check.hpp).
[[nodiscard]] FleetEnergy fleet_energy(const FleetTimeline& t, const FleetEnergyInputs& in,
                                       const std::vector<double>& storage_bps);

/// A job's attributed energy and carbon (the rule above).
struct JobEnergy {
  double energy_j = 0;
  double carbon_kg = 0;
};
[[nodiscard]] JobEnergy job_energy(const JobRecord& job, const FleetEnergyInputs& in);

}  // namespace fleetsim::models::fleet
