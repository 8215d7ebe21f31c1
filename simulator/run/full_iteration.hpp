#pragma once
// One whole training iteration simulated flow by flow: the reference the reduced step simulation
// (step_simulation.hpp) is validated against (tests/simulator/iteration_validation_test.cpp).
//
// Every GPU of every pipeline of every data-parallel replica runs its stage's 1F1B / interleaved
// order with two actors (simulator/actors/iteration_rank.hpp): passes as Execs on its own host,
// each pass's TP all-reduces as ring flows among its node's TP group (one pass's all-reduces
// aggregated into one ring of their combined bytes, the saved latencies waited for), every
// activation and gradient as a Comm to the consumer stage's GPU, and each chunk's DP all-gather and
// reduce-scatter as ring flows among the GPUs of its DP group, issued when the schedule issues them.
// Nothing is timed separately and multiplied: PP and DP flows share NICs and uplinks as they meet.
//
// Costs about 2 actors per GPU and every flow of the iteration: meant for validation at up to a
// few thousand GPUs, not for the replay. Context and expert parallelism are not modelled (cp = ep = 1).

#include "simulator/scenario/scenario.hpp"

#include <string>
#include <vector>

namespace fleetsim::sim {

/// How one link direction was shared during the iteration, from the recorded PP and DP flows.
struct LinkSharing {
  std::string link;     // SimGrid link name, e.g. "rack3-uplink_UP"
  int max_flows = 0;    // most flows crossing it at one instant
  int max_groups = 0;   // most distinct groups at one instant (a pipeline, or a DP group)
  double shared_s = 0;  // time during which flows of two or more groups crossed it
  double mixed_s = 0;   // time during which PP and DP flows crossed it together
};

struct FullIteration {
  double makespan_s = 0;   // the last GPU's compute or DP stream done
  double barrier_s = 0;    // the step-end barrier, analytic as in the reduced step
  double step_time_s = 0;  // makespan + barrier
  long comms = 0;          // flows simulated, NVLink included
  long execs = 0;
  long recorded_flows = 0;           // PP and DP flows (those that leave a node)
  std::vector<LinkSharing> uplinks;  // every rack or pod uplink direction that carried a flow, by name
  LinkSharing busiest_nic;           // the NIC direction with the most groups at once (then most mixed time)
  double wall_time_s = 0;
};

/// Runs the full iteration. Owns the process's Engine: call once per process, with a scenario whose
/// step inputs passed the loader's checks, on a Clos or rail fabric, with cp = ep = 1.
[[nodiscard]] FullIteration simulate_full_iteration(const scenario::Scenario& s);

}  // namespace fleetsim::sim
