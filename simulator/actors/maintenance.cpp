// The scheduler's planned interruptions: stop the job cleanly (after a checkpoint when
// planned.checkpoint_before), run the maintenance, start again. One that falls while the job is
// recovering is deferred until it trains again (background() counts it).
#include "job_scheduler.hpp"

namespace fleetsim::sim {

using models::Phase;

Task<> JobScheduler::on_planned()
{
  MaybeFailure failure;
  (void)co_await stop_job(true, w_.scenario.planned.checkpoint_before, failure);
  if (failure) {
    // A failure hit while the job was getting ready for maintenance (or at the very instant
    // it stopped cleanly): recover first, then run the maintenance.
    record_failure(*failure, failure_during_);
    ++deferred_planned_;
    co_await recover(*failure);
    co_return;
  }
  if (auto f = co_await planned())
    co_await recover(*f);
  else
    start_job(true);
}

Task<JobScheduler::MaybeFailure> JobScheduler::planned()
{
  models::Interruption rec;
  rec.t = now();
  rec.planned = true;
  rec.cause = "planned";
  rec.component = "job";
  rec.during = Phase::Training;
  w_.trace.interruption(std::move(rec));
  co_return co_await timed_phase(Phase::Planned, w_.scenario.planned.duration.si());
}

}  // namespace fleetsim::sim
