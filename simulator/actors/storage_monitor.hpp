#pragma once
// Watches the storage system: whenever a transfer starts or ends it records the write, read and
// servers' load SimGrid's sharing gives (a piecewise-constant record, exact between changes), and,
// with a token bucket (storage.burst_bandwidth, storage.burst_bytes), runs the bucket: the servers
// run at the burst rate while credit lasts, the credit falls at the excess of their load over the
// sustained rate (storage.bandwidth) and refills at the shortfall; once spent, the servers run at
// the sustained rate until the bucket is full again.

#include "run_context.hpp"

#include <vector>

namespace fleetsim::sim {

class StorageSystem;

/// The storage's load from time t until the next sample.
struct StorageSample {
  double t = 0;
  double write_bps = 0;     // through the servers' write cap
  double read_bps = 0;      // through their read cap
  double servers_bps = 0;   // through their total (reads and writes)
  double capacity_bps = 0;  // the servers' total now (the burst rate while credit lasts)
  double credit = 0;        // burst credit left (bytes)
};

class StorageMonitor {
public:
  StorageMonitor(StorageSystem& storage, std::vector<StorageSample>& samples) : storage_(storage), samples_(samples) {}
  void operator()();

private:
  /// Lets SimGrid share the resources anew after a change, and reads the servers' load.
  [[nodiscard]] double settle() const;
  void record(double credit) const;
  StorageSystem& storage_;
  std::vector<StorageSample>& samples_;
};

}  // namespace fleetsim::sim
