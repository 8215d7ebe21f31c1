#pragma once
// The synchronous training job. Started by the scheduler from the last committed checkpoint, it
// trains in stretches of `steps_per_checkpoint` steps (time jumps over the whole stretch: no event
// per step) and checkpoints after each one, stalling training while the write runs. An Interrupt
// (failure) stops it at once; a PlanStop lets it finish its step and checkpoint first.

#include "message.hpp"
#include "run_context.hpp"

namespace fleetsim::sim {

class TrainingJob {
public:
  explicit TrainingJob(const RunContext& ctx) : ctx_(ctx) {}
  void operator()();

private:
  enum class Outcome { Continue, Interrupted, PlannedStop };

  void run_incarnation(Inbox& inbox, long epoch);
  Outcome train(Inbox& inbox, long epoch, long steps);
  Outcome finish_step_then_stop(Inbox& inbox, long epoch, double t0);
  Outcome checkpoint(Inbox& inbox, long epoch);
  void stopped(long epoch, bool clean) const;

  const RunContext& ctx_;
  long committed_step_ = 0;  // step of the last committed checkpoint
  long step_ = 0;            // current step of this incarnation
  long next_request_ = 1;
};

}  // namespace fleetsim::sim
