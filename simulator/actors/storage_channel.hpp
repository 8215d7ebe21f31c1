#pragma once
// One client's queue of storage requests, served in order by a process (process.hpp): a job's checkpoint writes (an
// asynchronous checkpointer persists its snapshots one after another), or its reloads. Each request
// opens its files on the metadata service, then moves its bytes through the shared storage system
// (simulator/platform/storage_system.hpp), where every other channel's transfers contend with it. A
// requester whose job died mid-transfer aborts its request: the transfer is cancelled and no
// completion is reported.

#include "message.hpp"
#include "process.hpp"

#include <functional>
#include <vector>

namespace fleetsim::sim {

class StorageSystem;

/// The channel's side shared with requesters: its request queue and the transfer in flight.
class StorageQueue {
public:
  Inbox<msg::IoRequest> requests;
  /// Abandons request `id`, queued or in flight. A request that already completed is unaffected.
  void abort(long id);
  /// True while one of its requests is being served.
  [[nodiscard]] bool busy() const { return active_ != nullptr; }

private:
  friend class StorageChannel;
  long active_id_ = 0;
  sg4::ActivityPtr active_;
  std::vector<long> aborted_;  // ids aborted before their transfer started
};

class StorageChannel {
public:
  StorageChannel(StorageSystem& storage, int client, StorageQueue& queue)
      : storage_(storage), client_(client), queue_(queue)
  {}
  Process operator()() const;

private:
  /// Runs one request and tells its requester when it completed; false when it was aborted.
  Task<bool> serve(const msg::IoRequest& request) const;
  /// True (and forgotten) when request `id` was aborted before it became the active one.
  bool take_aborted(long id) const;
  /// On a waiting actor: opens the request's files, then moves its bytes; false when it was aborted.
  bool transfer(const msg::IoRequest& request) const;
  /// Waits for `a` (request `id`) with `wait`, abortable meanwhile; false when it was cancelled.
  bool finish(const sg4::ActivityPtr& a, long id, const std::function<bool()>& wait) const;
  StorageSystem& storage_;
  int client_;
  StorageQueue& queue_;
};

}  // namespace fleetsim::sim
