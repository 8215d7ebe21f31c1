#pragma once
// Runs the storage's token bucket (storage.burst_bandwidth, storage.burst_bytes): the servers run
// at the burst rate while credit lasts; the credit falls at the excess of their load over the
// sustained rate (storage.bandwidth) and refills at the shortfall; once spent, the servers run at
// the sustained rate until the bucket is full again. It wakes whenever a transfer starts or ends,
// and when the credit runs out or fills up at the current load. (The storage's load over time is
// the storage system's own record: storage_system.hpp.)

#include "run_context.hpp"

namespace fleetsim::sim {

class StorageSystem;

class StorageBucket {
public:
  explicit StorageBucket(StorageSystem& storage) : storage_(storage) {}
  void operator()();

private:
  /// Lets SimGrid share the resources anew after a change, and reads the servers' load.
  [[nodiscard]] double settle() const;
  StorageSystem& storage_;
};

}  // namespace fleetsim::sim
