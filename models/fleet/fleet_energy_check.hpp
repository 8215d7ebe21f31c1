#pragma once
// A fleet's energy account checked against a second, independent computation (every build).
//
// fleet_energy() builds each timeline row's draw with draw() (models/energy/power_model.*), whose
// facility total is the sum of its components by definition. This check recomputes every row from
// the timeline's columns and the power spec alone, without draw(), PowerDraw::it() or facility():
//   GPUs by state   training (compute_fraction computing, the rest communicating), held on up nodes
//                   and not training (the checkpoint draw), idle and spare (idle), down (off);
//   their draw      each count x its state's draw under the power limit, the floor's extra for the
//                   held GPUs; nodes: the GPUs not down, per node, x power.node; storage: the fixed
//                   draw plus the row's rate x J/B; no network; overhead (PUE - 1) x the IT draw summed
//                   here, facility PUE x that.
// The GPU count closes against a column the account does not read: the GPUs held on up nodes
// (the cluster less the down, idle and spare ones) are at most the jobs' allocated GPUs, and these
// exceed them by at most the down GPUs (a job detecting a failure still holds its failed node's
// GPUs, which are off); training GPUs are among the held ones.
// Compared: per row, the account's GPU counts (their sum against the cluster, then each state), the
// draws (their differences summed, against the facility's draw) and the row's energy; over the
// window, each component's energy, the facility's and the peak. Tolerances as in
// models/energy/energy_check.hpp (relative 1e-9: both sides add the same non-negative terms in a
// different order), but the closure's, relative 1e-9 of the cluster: its columns are time averages
// of GPU counts whose rounding is that of a sum of row pieces, ~1e-15 of the cluster.

#include "fleet_energy.hpp"

namespace fleetsim::models::fleet {

/// Throws InvariantViolation("fleet energy accounting closes", or "fleet power: every GPU is in one
/// state" for the closure) unless the account `e` of timeline `t` under `in` and `storage_bps`
/// matches the computation above. fleet_energy() calls it on every account it returns.
void check_fleet_energy(const FleetEnergy& e, const FleetTimeline& t, const FleetEnergyInputs& in,
                        const std::vector<double>& storage_bps);

}  // namespace fleetsim::models::fleet
