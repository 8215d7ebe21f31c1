#pragma once
// Control messages between a run's processes and actors, one type each, and the Inbox each waits on
// (an actor with wait(), a process with co_await next(): process.hpp). An inbox holds a
// std::variant of the messages its owner can receive, and the owner visits it: a message is exactly
// the fields its kind needs, and a message its owner cannot receive does not compile.
//
// Control messages take no simulated time, so they are not network transfers: an Inbox is a
// queue with a SimGrid semaphore. (Zero-byte detached mailbox transfers were the first design;
// SimGrid 3.32 keeps every detached transfer in one list that it scans linearly, so a 54-day run
// with ~20,000 messages spent a third of its time there.) Posting never blocks; waiting takes an
// optional absolute deadline in simulated time.

#include "process.hpp"

#include <simgrid/s4u.hpp>

#include <coroutine>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <variant>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;

namespace msg {

// ---- to the scheduler ----
/// Injector: a component failed, taking down GPUs [first_gpu, first_gpu + gpus_down) and nodes
/// [first_node, first_node + nodes) (no nodes for a job- or storage-scope cause).
struct Failure {
  int cause = -1;      // index into the scenario's causes
  long component = 0;  // index of the failed component of the cause's scope (models::component_label)
  long first_gpu = 0;
  long gpus_down = 0;
  long first_node = 0;
  long nodes = 0;
  long strike = 0;  // node scope: the keeper's id of the strike, for the slots it took (node_keeper.hpp)
};
struct Planned {};  // calendar: a planned interruption is due
struct Stopped {    // job: incarnation `epoch` has stopped
  long epoch = 0;
  bool clean = false;     // at a checkpoint (planned), not by a failure
  bool finished = false;  // at its token target, checkpointed: the job has ended
};
struct Repaired {  // repair shop: `node` is back from repair
  long node = 0;
  bool returned = false;  // already back in the pool (no job held it): the job is only told
};
struct SlowStart {  // slowdown injector: `node` starts episode `episode` for `duration`
  long node = 0;
  long episode = 0;
  double duration = 0;
};
struct SlowEnd {  // alarm: episode `episode` of `node` ends
  long node = 0;
  long episode = 0;
};
struct DrainCheck {  // alarm: has `node` been slow (episode, 0 = persistent) long enough?
  long node = 0;
  long episode = 0;
};
struct Tick {};  // alarm: the diurnal clock moved
struct Placed {};  // the job's host (a fleet): a requeued job holds its nodes again (requeue policy)

// ---- to the job ----
struct Start {  // run incarnation `epoch` from the last checkpoint
  long epoch = 0;
  bool memory = false;  // from host-memory snapshots, not from storage
};
struct Interrupt {  // the job died (failure)
  long epoch = 0;
  bool memory = false;  // the scheduler restores from host memory: commit the snapshots
};
struct PlanStop {  // stop cleanly at the next step boundary
  long epoch = 0;
  bool checkpoint_first = false;  // write a checkpoint before stopping
};
struct Retime {  // the step time changed (read it from the shape)
  long epoch = 0;
};

// ---- storage ----
struct IoDone {  // storage channel -> requester: request `id` completed
  long id = 0;
};
/// To a storage channel: write (a checkpoint) or read (a reload) `bytes` in `files` files (their
/// opens go to the metadata service); `done` delivers the IoDone to the requester's inbox.
struct IoRequest {
  long id = 0;
  bool write = true;
  double bytes = 0;
  double files = 1;
  std::function<void(IoDone)> done;
  double fixed_s = 0;  // the request's own fixed cost before its transfer (an asynchronous commit's)
};

// ---- data loading ----
struct Starved {  // loader -> job: the next step's batch is not there yet
  long epoch = 0;
};
struct Fed {  // loader -> job: it has arrived
  long epoch = 0;
};
struct DemandOn {  // job -> loader: incarnation `epoch` trains, one batch per `step_time`
  long epoch = 0;
  double step_time = 0;
};
struct DemandOff {};       // job -> loader: not training (checkpoint, failure, stop)
struct StorageChanged {};  // storage system -> loader: a transfer started or ended

}  // namespace msg

using SchedulerMessage = std::variant<msg::Failure, msg::Planned, msg::Stopped, msg::IoDone, msg::Repaired,
                                      msg::SlowStart, msg::SlowEnd, msg::DrainCheck, msg::Tick, msg::Placed>;
using JobMessage =
    std::variant<msg::Start, msg::Interrupt, msg::PlanStop, msg::Retime, msg::IoDone, msg::Starved, msg::Fed>;
using LoaderMessage = std::variant<msg::DemandOn, msg::DemandOff, msg::IoDone, msg::StorageChanged>;
/// To the alarm clock: deliver `message` to the scheduler `after` seconds from now.
struct AlarmRequest {
  double after = 0;
  SchedulerMessage message;
};

/// The inbox of an actor that receives messages of type M.
template <class M>
class Inbox {
public:
  Inbox() : wake_(sg4::Semaphore::create(0)) {}
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;

  /// Delivers a message now; wakes the owner if it waits.
  void post(M m)
  {
    // Actors run one at a time, so the queue needs no lock: the semaphore only wakes the owner, and
    // only when it waits (one simcall, where a mutex and a condition variable took four or five).
    queue_.push_back(std::move(m));
    if (waiter_) {  // a process waits in next(): its host resumes it
      if (timer_ != 0)
        host_->cancel(timer_);
      timer_ = 0;
      host_->ready(std::exchange(waiter_, {}), proc_);
    } else if (waiting_) {
      waiting_ = false;
      wake_->release();
    }
  }

  /// For a process (process.hpp): `co_await inbox.next(deadline)` is wait(deadline) without
  /// blocking the host's other processes.
  class Next {
  public:
    Next(Inbox& in, double deadline) : in_(in), deadline_(deadline) {}
    [[nodiscard]] bool await_ready()
    {
      if (!in_.kept_.empty() || !in_.queue_.empty())
        return true;
      return deadline_ >= 0 && deadline_ <= sg4::Engine::get_clock();
    }
    void await_suspend(std::coroutine_handle<> h)
    {
      in_.host_ = ProcessHost::current();
      in_.waiter_ = h;
      in_.proc_ = in_.host_->running();
      if (deadline_ >= 0)
        in_.timer_ = in_.host_->at(deadline_, &Inbox::timed_out, &in_, ++in_.token_);
      ProcessHost::waits(in_.proc_, &Inbox::withdraw, &in_);
    }
    std::optional<M> await_resume()
    {
      std::deque<M>* from = !in_.kept_.empty() ? &in_.kept_ : &in_.queue_;
      if (from->empty())
        return std::nullopt;  // the deadline passed
      M m = std::move(from->front());
      from->pop_front();
      return m;
    }

  private:
    Inbox& in_;
    double deadline_;
  };
  [[nodiscard]] Next next(double deadline) { return Next(*this, deadline); }

  /// The next message (kept ones first), or nullopt once `deadline` (absolute simulated time)
  /// has passed; a negative deadline waits forever.
  std::optional<M> wait(double deadline)
  {
    std::deque<M>* from = !kept_.empty() ? &kept_ : &queue_;
    if (from->empty()) {
      while (queue_.empty()) {
        // A wake-up left over from a post that raced a timeout only costs one more turn of the loop.
        const double now = sg4::Engine::get_clock();
        if (deadline >= 0 && deadline <= now)
          return std::nullopt;
        waiting_ = true;
        const bool timed_out = deadline < 0 ? (wake_->acquire(), false) : wake_->acquire_timeout(deadline - now);
        waiting_ = false;
        if (timed_out && queue_.empty())
          return std::nullopt;
      }
      from = &queue_;
    }
    M m = std::move(from->front());
    from->pop_front();
    return m;
  }

  /// Keeps a message to be returned by a later wait(), before anything posted since.
  void keep(M m) { kept_.push_back(std::move(m)); }

private:
  // A process's deadline in next() passed: it resumes with nothing.
  static void timed_out(void* owner, long token)
  {
    auto* in = static_cast<Inbox*>(owner);
    if (token != in->token_ || !in->waiter_)
      return;
    in->timer_ = 0;
    in->host_->ready(std::exchange(in->waiter_, {}), in->proc_);
  }
  // The waiting process is ended (ProcessHost::kill_group): it waits no more.
  static void withdraw(void* wait)
  {
    auto* in = static_cast<Inbox*>(wait);
    if (in->timer_ != 0)
      in->host_->cancel(in->timer_);
    in->timer_ = 0;
    in->waiter_ = {};
  }

  sg4::SemaphorePtr wake_;  // released by post() when the owner waits
  bool waiting_ = false;
  // The owner when it is a process waiting in next(): its host, its handle, its deadline's timer.
  ProcessHost* host_ = nullptr;
  std::coroutine_handle<> waiter_;
  ProcessHost::Proc* proc_ = nullptr;
  long timer_ = 0;
  long token_ = 0;
  std::deque<M> queue_;
  std::deque<M> kept_;
};

/// std::visit with one lambda per alternative.
template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace fleetsim::sim
