#pragma once
// Energy accounting of a single-job replay: a pure function from the goodput timeline (one row per
// phase segment) and the trace to the power of every row, the energy by component, the peak, the
// swings between rows with their causes, the ramps, and the swing inside a training step.
//
// What each phase's GPUs do (docs/models/energy.md, the assumptions are stated there):
//   training, warmup   compute for compute_s / step_time of each step, communicate or wait the rest;
//   checkpoint         paused for the checkpoint;
//   detection          hung in a collective: the communicate draw;
//   reload, data_stall idle, the job's processes running;
//   restart, planned,  idle, the job's processes gone (no power floor);
//   waiting
// A staggered restart (power.restart_stagger) brings the job's load up linearly over the stagger at
// the start of the warmup that follows a recovery: that row's energy counts the ramp, and its swing
// (the full change of load) takes the stagger, not the ramp time.
// The job's GPUs are the segment's active GPUs; the GPUs an unexpected failure took down are off from
// the failure until the job trains again; every other GPU of the cluster (spares included) idles.
// Each row's draw is constant over the row. The invariant, checked in every build on every account
// this returns, is that the account matches a second computation from the same inputs that does not
// go through draw(): every row's GPUs by state (adding up to the cluster), each component, the
// facility's draw and the cumulative energy, and each component's energy over the run
// (models/energy/energy_check.hpp, "energy accounting closes"). That the components add up to the
// facility is not checked: facility() is their sum by definition.

#include "carbon.hpp"
#include "power_model.hpp"
#include "step_traffic.hpp"
#include "models/accounting/goodput.hpp"

#include <map>
#include <string>
#include <vector>

namespace fleetsim::models::energy {

/// The storage's throughput from `t` until the next rate (reads and writes together).
struct StorageRate {
  double t = 0;
  double bytes_per_s = 0;
};

struct ReplayPower {
  PowerSpec spec;
  long cluster_gpus = 0;  // every powered GPU: the job's fleet and the spare nodes'
  int gpus_per_node = 8;
  double compute_s = 0;  // the step's compute term (StepBreakdown::compute), under the power limit
  double step_time = 0;  // the full job's step (StepBreakdown::step_time), under the power limit
  long job_gpus = 0;     // the full job's GPUs (the step swing's)
  StepTraffic traffic;   // per GPU per step
  std::vector<StorageRate> storage;
  const CarbonProfile* grid = nullptr;  // operational carbon, when the scenario gives a profile
};

/// A change of the facility's draw from one row to the next.
struct Swing {
  double t = 0;
  double delta_w = 0;  // after - before
  Phase from = Phase::Training;
  Phase to = Phase::Training;
  std::string cause;  // "start", "checkpoint", "failure", "maintenance", "restart", "data_stall", "recovery"
  double ramp_s = 0;  // how long the change takes: the ramp time, or a staggered restart's stagger
};

struct SwingStats {
  long count = 0;
  double max_w = 0;  // the largest |delta|
  double t_max = 0;  // when it happened
  double max_ramp_w_per_s = 0;
};

struct EnergyReport {
  std::vector<PowerDraw> rows;    // the mean draw of each timeline row (W)
  std::vector<GpuMix> gpus;       // the cluster's GPUs by state in each row (time-weighted), for the check
  std::vector<double> energy_j;   // facility energy from 0 to each row's end
  std::vector<double> carbon_kg;  // operational carbon from 0 to each row's end (0 without a profile)
  double operational_kg = 0;
  PowerDraw energy;    // joules by component over the run
  double elapsed = 0;  // s
  double mean_w = 0;   // facility
  double peak_w = 0;   // the largest row mean
  double peak_t = 0;   // the start of that row
  Phase peak_phase = Phase::Training;
  double peak_instant_w = 0;    // the largest draw at an instant: every job GPU computing
  double step_swing_w = 0;      // inside a training step: compute against communicate, facility side
  double compute_fraction = 0;  // of a full-speed step, at the compute draw
  std::vector<Swing> largest;   // the largest swings, largest first (at most kLargestSwings)
  std::map<std::string, SwingStats> by_cause;
  double fastest_ramp_w_per_s = 0;  // the largest swing (or the step's) over the ramp time
  double fastest_ramp_t = 0;
  std::string fastest_ramp_cause;
};

inline constexpr size_t kLargestSwings = 5;

[[nodiscard]] EnergyReport account_energy(const GoodputReport& report, const TraceLog& log, const ReplayPower& in);

}  // namespace fleetsim::models::energy
