#pragma once
// Control messages between the run-level actors, and the Inbox every actor waits on.
//
// Control messages take no simulated time, so they are not network transfers: an Inbox is a
// queue guarded by a SimGrid condition variable. (Zero-byte detached mailbox transfers were the
// first design; SimGrid 3.32 keeps every detached transfer in one list that it scans linearly, so a
// 54-day run with ~20,000 messages spent a third of its time there.) Posting never blocks; waiting
// takes an optional absolute deadline in simulated time.

#include <simgrid/s4u.hpp>

#include <deque>
#include <optional>
#include <string>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;

class Inbox;

enum class MessageType {
  Failure,       // injector -> scheduler: a component failed
  Planned,       // calendar -> scheduler: a planned interruption is due
  Start,         // scheduler -> job: run from the last checkpoint
  Interrupt,     // scheduler -> job: the job died (failure)
  PlanStop,      // scheduler -> job: stop cleanly for planned maintenance
  Stopped,       // job -> scheduler: the job has stopped
  WriteRequest,  // job -> coordinator: write a checkpoint
  ReadRequest,   // scheduler -> coordinator: reload the last checkpoint
  IoDone,        // coordinator -> requester: the write or read completed
  Repaired,      // alarm -> scheduler: `node` is back from repair
  SlowStart,     // straggler injector -> scheduler: `node` starts slowdown episode `id` for `duration`
  SlowEnd,       // alarm -> scheduler: episode `id` of `node` ends
  DrainCheck,    // alarm -> scheduler: has `node` been slow (episode `id`, 0 = persistent) long enough?
  Tick,          // alarm -> scheduler: the diurnal clock moved
  Retime,        // scheduler -> job: the step time changed (read it from the shape)
};

struct Message {
  MessageType type = MessageType::Failure;
  long id = 0;          // epoch of the job, or request id
  int cause = -1;       // failure cause index
  std::string component;
  long first_gpu = 0;   // Failure: the GPUs the component takes down
  long gpus_down = 0;
  long first_node = 0;  // Failure: the nodes it takes down (none for a job-scope cause)
  long nodes = 0;
  long node = 0;        // Repaired, SlowStart, SlowEnd, DrainCheck
  double duration = 0;  // SlowStart; a message posted to the alarm clock: delay before delivery
  double bytes = 0;
  Inbox* reply_to = nullptr;
  bool clean = false;   // Stopped: ended at a checkpoint (planned) rather than by a failure;
                        // PlanStop: write a checkpoint before stopping
  bool memory = false;  // Interrupt, Start: restore from host-memory snapshots, not from storage
};

class Inbox {
public:
  Inbox() : wake_(sg4::Semaphore::create(0)) {}
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;

  /// Delivers a message now; wakes the owner if it waits.
  void post(Message m);

  /// The next message (kept ones first), or nullopt once `deadline` (absolute simulated time)
  /// has passed; a negative deadline waits forever.
  std::optional<Message> wait(double deadline);

  /// Keeps a message to be returned by a later wait(), before anything posted since.
  void keep(Message m) { kept_.push_back(std::move(m)); }

private:
  sg4::SemaphorePtr wake_;  // released by post() when the owner waits
  bool waiting_ = false;
  std::deque<Message> queue_;
  std::deque<Message> kept_;
};

}  // namespace fleetsim::sim
