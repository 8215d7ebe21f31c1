#pragma once
// The job's data loader: each step needs one batch of `bytes_per_step` (data.bytes_per_token x
// tokens per step) read from the shared storage, and the loader keeps up to data.prefetch_steps
// batches ready ahead of training. A batch is one read through the storage system, so it shares the
// servers, the read cap and the job's NICs with every other transfer (the job's own checkpoint
// drains, restores, other jobs' I/O) as SimGrid's sharing dictates.
//
// Time still jumps: while nothing else uses the storage and the buffer is full, the loader is
// quiet (a batch alone reads faster than a step, which the Simulation checks; otherwise the loader
// is never quiet). Once another transfer starts, it follows training step by step: it consumes a
// batch every step time while the job trains, reads batches one after another while the buffer has
// room, and, when a step finds the buffer empty, tells the job it is starved (the job stalls in
// `data_stall`) until the next batch arrives. When the storage is quiet again and the buffer full,
// it goes quiet too. Its reads go through a storage channel of its own.

#include "process.hpp"
#include "run_context.hpp"

namespace fleetsim::sim {

class StorageQueue;

struct LoaderWiring {
  StorageSystem& storage;
  StorageQueue& reads;  // served by the loader's storage channel
  Inbox<LoaderMessage>& inbox;
  Inbox<JobMessage>& job;
  DataDemand& demand;  // the job's, shared
  double bytes_per_step = 0;
  int capacity = 1;          // batches the prefetch buffer holds (>= 1)
  bool never_quiet = false;  // alone, the storage cannot deliver a batch per step
};

class DataLoader {
public:
  explicit DataLoader(const LoaderWiring& w) : w_(w) {}
  Process operator()();

private:
  void on(const LoaderMessage& m);
  /// A step starts: it takes a batch, or the job starves.
  void consume();
  /// Quiet or following, and a read started when the buffer has room.
  void update();

  LoaderWiring w_;
  bool following_ = false;  // tracking steps (the storage is busy or the buffer not full)
  bool demand_ = false;     // the job trains
  bool starved_ = false;    // the job waits for a batch
  bool reading_ = false;    // a batch read in flight
  long epoch_ = 0;
  double step_time_ = 0;
  double next_ = 0;  // when the next step takes its batch
  int buffer_ = 0;   // batches ready (while following)
  long next_id_ = 1;
};

}  // namespace fleetsim::sim
