#pragma once
// Where a fleet's GPU time went, and the fleet timeline.
//
// Every GPU-second a job holds is classified exactly once: productive (work that counts: finished,
// committed, or still running when the window closes), or lost to a cause. Causes are the
// checkpoint stalls, the first start-up of each job, preemption (its checkpoint or its lost work, and
// the restart after it), and each failure cause (detection, the work since the last checkpoint, and
// the restart after it). The invariant: allocated = productive + the sum of the losses.

#include <string>
#include <vector>

namespace fleetsim::models::fleet {

/// Fixed loss causes; failure cause i is kFirstFailureCause + i.
enum LossCause : int { kCheckpoint = 0, kStartup = 1, kPreemption = 2, kFirstFailureCause = 3 };

struct GpuTime {
  double allocated = 0;      // GPU-seconds held by jobs
  double productive = 0;     // of which training that counts
  std::vector<double> lost;  // by LossCause (GPU-seconds)
  void charge(int cause, double gpu_seconds)
  {
    if (static_cast<size_t>(cause) >= lost.size())
      lost.resize(static_cast<size_t>(cause) + 1, 0);
    lost[static_cast<size_t>(cause)] += gpu_seconds;
  }
  [[nodiscard]] double lost_total() const
  {
    double s = 0;
    for (double x : lost)
      s += x;
    return s;
  }
};

/// The ledger's invariant: throws models::InvariantViolation unless allocated = productive + lost
/// (to a relative 1e-6). `whose`: "fleet" or "job <id>", for the message. The two sides are summed
/// apart: allocated at each release (GPUs held x the time since they were taken), productive and
/// lost piece by piece as each phase of the job ends. Times near 1e6 s round to ~1e-10 s, and a short
/// job's ledger adds dozens of them: 1e-6 of its GPU-seconds leaves room (the shipped scenarios'
/// worst job is at 3e-12).
void check_closes(const GpuTime& g, const std::string& whose);

/// Columns of the fleet timeline: time averages over each interval.
enum TimelineColumn : int {
  kAllocated = 0,  // GPUs held by jobs
  kTraining,       // GPUs making progress (excludes restart, checkpoint and detection time; the part a
                   // failure later loses is included)
  kIdle,           // schedulable, up and free
  kSpare,          // the spare reserve
  kDown,           // nodes in repair
  kDemand,         // GPUs the waiting jobs ask for
  kRunningJobs,
  kWaitingJobs,
  kIdleWhileWaiting,  // idle GPUs while some job waits (fragmentation)
  kTimelineColumns
};
[[nodiscard]] const char* timeline_column_name(int column);

/// Time averages of the columns over intervals of `interval` s covering [0, horizon).
class FleetTimeline {
public:
  FleetTimeline(double horizon, double interval);
  /// A step-function column changes to `value` at time t.
  void level(int column, double value, double t);
  /// Adds `amount` over [a, b) (a segment's training GPUs).
  void add(int column, double a, double b, double amount);
  /// Closes the step functions at the horizon.
  void finish(double horizon);
  [[nodiscard]] size_t rows() const { return rows_; }
  [[nodiscard]] double interval() const { return interval_; }
  [[nodiscard]] double row_start(size_t i) const { return static_cast<double>(i) * interval_; }
  [[nodiscard]] double row_length(size_t i) const;
  /// Time average of a column over row i.
  [[nodiscard]] double mean(int column, size_t i) const;
  /// Integral of a column over the whole window (unit x s).
  [[nodiscard]] double integral(int column) const;

private:
  double horizon_;
  double interval_;
  size_t rows_;
  std::vector<double> sum_;  // rows x columns, value x seconds
  double last_t_[kTimelineColumns] = {};
  double value_[kTimelineColumns] = {};
};

/// The fleet's allocated GPU-seconds against the timeline's gpus_allocated column integrated over
/// the window (a step function of the GPUs held, set at every event): throws
/// models::InvariantViolation unless they agree to a relative 1e-9 (both are sums of GPUs x
/// durations over the whole fleet; the shipped scenarios agree to 1e-14).
void check_allocated(const GpuTime& fleet, const FleetTimeline& timeline);

}  // namespace fleetsim::models::fleet
