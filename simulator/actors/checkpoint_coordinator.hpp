#pragma once
// Serves checkpoint writes and reloads against the storage service. The transfer is a SimGrid Io on
// the storage Disk, so concurrent transfers share its bandwidth. A request can be aborted (the job
// died mid-write, or a failure struck during reload): the Io is cancelled and nothing is reported.

#include "message.hpp"
#include "run_context.hpp"

namespace fleetsim::sim {

class CheckpointCoordinator {
public:
  explicit CheckpointCoordinator(const RunContext& ctx) : ctx_(ctx) {}
  void operator()() const;

private:
  /// Runs one request to completion or abort; returns true when it completed.
  bool serve(Inbox& inbox, const Message& request) const;
  const RunContext& ctx_;
};

}  // namespace fleetsim::sim
