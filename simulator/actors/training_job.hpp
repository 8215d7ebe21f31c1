#pragma once
// The synchronous training job. Started by the scheduler from the last committed checkpoint, it
// trains in stretches of steps (time jumps over the whole stretch: no event per step), as many as
// the interval in force allows (checkpoint_state.hpp), and checkpoints after each one:
//  - sync: training stalls while the write runs;
//  - async: training stalls for the fixed part and the device-to-host snapshot only; the write
//    drains in the background through the job's storage channel while the next stretch trains, and
//    the checkpoint counts once it has drained. With every host buffer still draining, the next
//    checkpoint waits; a failure before a drain completes loses that checkpoint.
// An Interrupt (failure) stops it at once; a PlanStop lets it finish its step and checkpoint first
// (an asynchronous job also waits for its drains: the stop is clean once they are durable).
// With in-memory recovery, snapshots are taken every `steps_per_snapshot` steps of a stretch and
// cost nothing (assumed hidden behind training, as Gemini reports); they only matter when a failure
// lets the job restore from them, and then the interrupted stretch commits up to its last snapshot.

#include "process.hpp"
#include "run_context.hpp"

#include <deque>
#include <optional>

namespace fleetsim::sim {

class TrainingJob {
public:
  explicit TrainingJob(const JobWiring& w) : w_(w) {}
  Process operator()();

private:
  enum class Outcome { Continue, Interrupted, PlannedStop };
  /// An asynchronous checkpoint whose write is draining.
  struct Drain {
    long id = 0;
    long step = 0;         // the state it holds
    double trained_s = 0;  // this incarnation's training time when its snapshot was taken
    double t = 0;          // when its snapshot was taken
  };

  Task<> run_incarnation(long epoch, bool from_memory);
  /// Steps to train before the next checkpoint.
  long stretch_steps();
  Task<Outcome> train(long epoch, long steps);
  Task<Outcome> finish_step_then_stop(long epoch, bool checkpoint_first);
  /// Interrupted `done` whole steps into the stretch: when the scheduler restores from host memory,
  /// the snapshots taken in the stretch are committed.
  void interrupted(const msg::Interrupt& m, long done);
  /// Adds the training since the segment began to the stretch's progress.
  void advance();
  void open_training();
  /// Closes the training segment with the stretch at `steps_done` whole steps.
  void close_segment(bool interrupted, long steps_done);
  /// Interrupted during a checkpoint: the whole stretch is in the last host-memory snapshot.
  void snapshot_complete_stretch(const msg::Interrupt& m);
  Task<Outcome> checkpoint(long epoch, bool stopping = false);
  Task<Outcome> checkpoint_sync(long epoch);
  Task<Outcome> checkpoint_async(long epoch, bool stopping);
  /// A message during an asynchronous checkpoint's pause or wait: the outcome if it ends it.
  std::optional<Outcome> during_pause(const JobMessage& m, long epoch, bool& plan_stop);
  /// Waits in a checkpoint phase until every drain has completed (a clean stop).
  Task<Outcome> drain_all(long epoch);
  /// A drain completed: commit its checkpoint. `training` when a training segment is open (it is
  /// split, so that the commit follows the training it saves). False when `done` is not a drain.
  bool drained(const msg::IoDone& done, bool training, long steps_cap);
  /// The job died: its drains are cut off, their checkpoints lost.
  void abort_drains();
  void committed(long step);
  [[nodiscard]] bool multi_level() const { return w_.plan.strategy == scenario::CheckpointStrategy::MultiLevel; }
  /// multi_level, interrupted with `steps_done` steps done: when the restore is from memory, the
  /// last snapshot holds everything but the training since it.
  void memory_commit(const msg::Interrupt& m, long steps_done);
  /// Tells the data loader whether the job trains (and at which step time).
  void demand(long epoch, bool on);
  /// Stalled for data: waits for the batch; the outcome if something else ends the stall first.
  Task<std::optional<Outcome>> stall(long epoch, bool& plan_stop);
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
  double open_t_ = 0;              // when the training segment in progress opened
  double trained_s_ = 0;           // training time in closed segments of this incarnation
  double snapshot_trained_s_ = 0;  // multi_level: trained_s_ when the last snapshot was taken
  long snapshots_ = 0;             // multi_level: snapshots taken (every remote_every-th drains)
  double step_time_ = 0;
  long next_request_ = 1;
  std::deque<Drain> draining_;
  bool plan_checkpoint_ = true;  // a planned stop that came during a data stall: checkpoint first?
};

}  // namespace fleetsim::sim
