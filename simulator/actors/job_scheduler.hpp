#pragma once
// Drives the job's life: starts it, reacts to failures and planned interruptions, and runs the
// recovery sequence detection -> restart -> reload -> warm-up. A failure during any recovery phase
// (or during planned maintenance) restarts recovery from detection. A planned interruption that
// falls while the job is down waits until the job is training again.

#include "message.hpp"
#include "run_context.hpp"

namespace fleetsim::sim {

class JobScheduler {
public:
  explicit JobScheduler(const RunContext& ctx) : ctx_(ctx) {}
  void operator()();

private:
  /// Stops the running job; returns true if it stopped cleanly (planned, after its checkpoint).
  /// A failure that arrives meanwhile is returned through `failure`.
  bool stop_job(Inbox& inbox, MessageType how, std::optional<Message>& failure);
  /// Recovers from `failure` and any failure during recovery; returns once the job runs again.
  void recover(Inbox& inbox, Message failure);
  /// Runs the planned interruption; returns a failure that struck during it, if any.
  std::optional<Message> planned(Inbox& inbox);
  /// Spends `phase` for `duration`; returns the failure that cut it short, if any.
  std::optional<Message> timed_phase(Inbox& inbox, models::Phase phase, double duration);
  std::optional<Message> reload_phase(Inbox& inbox);
  void record_failure(const Message& failure, models::Phase during) const;
  void start_job();
  /// What the job is doing now (the open phase of the trace).
  [[nodiscard]] models::Phase job_phase() const;

  const RunContext& ctx_;
  long epoch_ = 0;
  long deferred_planned_ = 0;
  models::Phase failure_during_ = models::Phase::Training;
  long next_request_ = 1'000'000'000;  // ids distinct from the job's write requests
};

}  // namespace fleetsim::sim
