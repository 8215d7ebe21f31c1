#pragma once
// A fleet job's state and its record, as jobs.csv shows it (fleet_state.hpp drives them).

#include "fleet_ledger.hpp"

#include "models/core/names.hpp"

namespace fleetsim::models::fleet {

// Deferred: submitted, but not eligible before its carbon-aware start (FleetConfig::carbon_aware).
enum class JobState { Pending, Waiting, Running, Detecting, Preempting, Checkpointing, Restoring, Done, Deferred };
/// As jobs.csv's `state` column and the fleet report spell them (Detecting is "recovering").
inline constexpr NameTable<JobState, 9> kJobStateNames{{{"pending", JobState::Pending},
                                                         {"waiting", JobState::Waiting},
                                                         {"running", JobState::Running},
                                                         {"recovering", JobState::Detecting},
                                                         {"preempting", JobState::Preempting},
                                                         {"checkpointing", JobState::Checkpointing},
                                                         {"restoring", JobState::Restoring},
                                                         {"done", JobState::Done},
                                                         {"deferred", JobState::Deferred}}};

/// One job's record, as jobs.csv shows it.
struct JobRecord {
  JobState state = JobState::Pending;
  double first_start = -1;     // s; -1: never started
  double end = -1;             // s; -1: not finished
  double waited = 0;           // s spent waiting in the queue, requeues included
  double committed = 0;        // s of work saved by checkpoints (or finished)
  double progress_at_end = 0;  // s of work done when the window closed (its checkpoints' if not running)
  long held = 0;               // GPUs held (whole nodes for a multi-node job)
  long racks = 0;              // spanned by its first placement
  long pods = 0;
  long max_racks = 0;      // the most any of its placements spanned
  long interruptions = 0;  // failures that struck it
  long preemptions = 0;
  GpuTime time;          // its GPU-seconds
  double eligible = -1;  // s: when it could first be scheduled (its submit unless deferred); -1: not submitted
  // For its energy and carbon (models/fleet/fleet_energy.hpp): GPU-seconds of training (work done,
  // as the timeline's gpus_training), and GPU-seconds weighted by the grid's intensity (g/kWh) over
  // the training and over all the time it held GPUs.
  double training_gpu_s = 0;
  double training_gpu_s_ci = 0;
  double allocated_gpu_s_ci = 0;
};

}  // namespace fleetsim::models::fleet
