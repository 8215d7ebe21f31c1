#pragma once
// Serves checkpoint writes and reloads against the storage service, one request at a time. The
// transfer is a SimGrid Io on the storage Disk, a bandwidth resource that concurrent transfers
// (several coordinators, several jobs) would share. A requester whose job died mid-transfer aborts
// its request: the Io is cancelled and no completion is reported.

#include "message.hpp"

#include <vector>

namespace fleetsim::sim {

/// The coordinator's side shared with requesters: its request queue and the transfer in flight.
class CoordinatorLink {
public:
  Inbox<msg::IoRequest> requests;
  double storage_back = 0;  // a storage outage lasts until then: transfers wait for it
  /// Abandons request `id`, queued or in flight. A request that already completed is unaffected.
  void abort(long id);

private:
  friend class CheckpointCoordinator;
  long active_id_ = 0;
  sg4::IoPtr active_io_;
  std::vector<long> aborted_;  // ids aborted before their transfer started
};

class CheckpointCoordinator {
public:
  CheckpointCoordinator(sg4::Disk* storage, CoordinatorLink& link) : storage_(storage), link_(link) {}
  void operator()() const;

private:
  /// Runs one transfer; returns true when it completed, false when it was aborted.
  bool serve(const msg::IoRequest& request) const;
  sg4::Disk* storage_;
  CoordinatorLink& link_;
};

}  // namespace fleetsim::sim
