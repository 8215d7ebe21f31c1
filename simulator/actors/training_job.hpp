#pragma once
// The synchronous training job. Started by the scheduler from the last committed checkpoint, it
// trains in stretches of `steps_per_checkpoint` steps (time jumps over the whole stretch: no event
// per step) and checkpoints after each one, stalling training while the write runs. An Interrupt
// (failure) stops it at once; a PlanStop lets it finish its step and checkpoint first.
// With in-memory recovery, snapshots are taken every `steps_per_snapshot` steps of a stretch and
// cost nothing (assumed hidden behind training, as Gemini reports); they only matter when a failure
// lets the job restore from them, and then the interrupted stretch commits up to its last snapshot.

#include "run_context.hpp"

namespace fleetsim::sim {

class TrainingJob {
public:
  explicit TrainingJob(const JobWiring& w) : w_(w) {}
  void operator()();

private:
  enum class Outcome { Continue, Interrupted, PlannedStop };

  void run_incarnation(long epoch, bool from_memory);
  Outcome train(long epoch, long steps);
  Outcome finish_step_then_stop(long epoch, bool checkpoint_first);
  /// Interrupted `done` whole steps into the stretch: when the scheduler restores from host memory,
  /// the snapshots taken in the stretch are committed.
  void interrupted(const msg::Interrupt& m, long done);
  /// Adds the training since the segment began to the stretch's progress.
  void advance();
  /// Closes the training segment with the stretch at `steps_done` whole steps.
  void close_segment(bool interrupted, long steps_done);
  /// Interrupted during a checkpoint: the whole stretch is in the last host-memory snapshot.
  void snapshot_complete_stretch(const msg::Interrupt& m);
  Outcome checkpoint(long epoch);
  void stopped(long epoch, bool clean) const;

  JobWiring w_;
  long committed_step_ = 0;  // step of the last committed checkpoint (storage)
  long memory_step_ = 0;     // step of the last host-memory snapshot known to survive
  long stretch_step_ = 0;    // step at which the current stretch began (a committed point)
  long step_ = 0;            // current step of this incarnation
  // The stretch in progress: fractional steps done, whole steps already in closed segments, the
  // current segment's start and step time (a Retime closes the segment and opens another).
  double progress_ = 0;
  long reported_ = 0;
  double segment_t_ = 0;
  double step_time_ = 0;
  long next_request_ = 1;
};

}  // namespace fleetsim::sim
