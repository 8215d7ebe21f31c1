#pragma once
// Control messages between the run-level actors, and the Inbox every actor waits on.
//
// Messages are zero-byte SimGrid communications on a zero-latency loopback, so they arrive at the
// simulated instant they are sent. An Inbox keeps one receive pending at all times (never
// cancelled), so a message that arrives at the same instant as a deadline is never lost, and lets
// an actor wait for one kind of message while it keeps the others for later.

#include <simgrid/s4u.hpp>

#include <deque>
#include <memory>
#include <optional>
#include <string>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;

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
  Abort,         // requester -> coordinator: abandon the request
};

struct Message {
  MessageType type = MessageType::Failure;
  long id = 0;          // epoch of the job, or request id
  int cause = -1;       // failure cause index
  std::string component;
  double bytes = 0;
  double overhead = 0;  // fixed cost before the transfer (s)
  sg4::Mailbox* reply_to = nullptr;
  bool clean = false;   // Stopped: ended at a checkpoint (planned) rather than by a failure
};

void send(sg4::Mailbox* to, Message m);

class Inbox {
public:
  explicit Inbox(sg4::Mailbox* mailbox) : mailbox_(mailbox) {}
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;
  ~Inbox();

  /// The next message (kept ones first), or nullopt once `deadline` (absolute simulated time)
  /// has passed; a negative deadline waits forever. If `activity` completes first, returns
  /// nullopt and sets *activity_done.
  std::optional<Message> wait(double deadline, sg4::ActivityPtr activity = nullptr,
                              bool* activity_done = nullptr);

  /// Keeps a message to be returned by a later wait(), in order.
  void keep(Message m) { kept_.push_back(std::move(m)); }

  [[nodiscard]] sg4::Mailbox* mailbox() const { return mailbox_; }

private:
  sg4::Mailbox* mailbox_;
  sg4::CommPtr pending_;
  Message* slot_ = nullptr;
  std::deque<Message> kept_;
};

}  // namespace fleetsim::sim
