#pragma once
// A fleet's GPU-time accounts (fleet_ledger.hpp): the fleet's total and each job's, and the fleet
// timeline. Each charge goes to the job's record and to the total at once, so that the two close
// the same way; what a job holds is weighted by the grid's carbon intensity when there is a profile.

#include "fleet_ledger.hpp"
#include "job_progress.hpp"
#include "job_record.hpp"

#include "models/energy/carbon.hpp"

namespace fleetsim::models::fleet {

class FleetAccounts {
public:
  FleetAccounts(int loss_causes, double horizon, double timeline_interval, const energy::CarbonProfile& carbon);

  /// A job's record before its first charge: a zero for every loss cause.
  void open(JobRecord& r) const;
  /// `gpu_seconds` (> 0) of the job's held time lost to `cause`.
  void charge(JobRecord& r, int cause, double gpu_seconds);
  /// `gpu_seconds` (> 0) of the job's held time that trained work that counts.
  void productive(JobRecord& r, double gpu_seconds);
  /// The job held its GPUs over [a, b): allocated GPU-time, and its carbon-weighted share.
  void allocated(JobRecord& r, double a, double b);
  /// The training of segment `seg` up to t_end on the job's GPUs: the timeline's training column,
  /// row by row, and the job's training GPU-seconds (carbon-weighted at each row piece's intensity).
  void training(JobRecord& r, const Segment& seg, double t_end);
  /// `gpus` GPUs of the job trained over [a, b) (a replayed job's training segment).
  void training_span(JobRecord& r, double a, double b, double gpus);

  [[nodiscard]] const GpuTime& total() const { return total_; }
  [[nodiscard]] const FleetTimeline& timeline() const { return timeline_; }
  [[nodiscard]] FleetTimeline& timeline() { return timeline_; }

private:
  int loss_causes_;
  energy::CarbonProfile carbon_;  // a copy: the accounts may outlive the config
  GpuTime total_;
  FleetTimeline timeline_;
};

}  // namespace fleetsim::models::fleet
