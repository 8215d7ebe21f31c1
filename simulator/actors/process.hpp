#pragma once
// A job's processes are C++20 coroutines on one SimGrid actor, not an actor each
// (docs/architecture.md, decision 40). The code of a process reads as an actor's did (wait for a
// message or a deadline, sleep until a date, call a step that waits), with `co_await` where an actor
// blocked; its frame is a heap allocation of a few hundred bytes, where an actor costs a stack and
// two memory mappings (SimGrid stops near 32k actors) and a context switch per wake-up. So a fleet
// can run every one of its jobs on the job's own processes.
//
// The host is one SimGrid actor that owns the processes and resumes them: the ready ones first, in
// the order they became ready, then, when none is ready, it sleeps on a SimGrid semaphore until the
// earliest timer (a deadline or a sleep) or until an actor posts to one of its processes' inboxes.
// Timers due at the same date fire in the order they were set. A process must never call a blocking
// SimGrid function: that would block every process of the host.
//
// A process belongs to a group (a job's processes are one): kill_group() ends them all before the
// simulation does, as a job that reaches its target ends. A process is never ended in the middle of
// a resume: one that waits on a timer or an inbox is ended at once (its wait withdrawn); one whose
// blocking wait runs on an actor is ended when that wait returns, instead of being resumed.

#include <simgrid/s4u.hpp>

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fleetsim::sim {

namespace sg4 = simgrid::s4u;

class ProcessHost;

namespace detail {

/// Coroutine frames come from per-size free lists: a process allocates a frame for every step it
/// awaits, and malloc was a tenth of the host's cost. (Sanitized builds use the heap, so that
/// AddressSanitizer still sees every frame.)
void* frame_alloc(std::size_t n);
void frame_free(void* p, std::size_t n) noexcept;
struct FrameAllocated {
  static void* operator new(std::size_t n) { return frame_alloc(n); }
  static void operator delete(void* p, std::size_t n) noexcept { frame_free(p, n); }
};

/// Where a finished coroutine goes on: to the coroutine that awaits it, else back to the host.
struct Continue {
  std::coroutine_handle<> next;
  [[nodiscard]] bool await_ready() const noexcept { return false; }
  [[nodiscard]] std::coroutine_handle<> await_suspend(std::coroutine_handle<> /*self*/) const noexcept
  {
    return next ? next : std::noop_coroutine();
  }
  void await_resume() const noexcept {}
};

struct TaskPromiseBase : FrameAllocated {
  std::coroutine_handle<> continuation;
  std::exception_ptr error;
  [[nodiscard]] std::suspend_always initial_suspend() const noexcept { return {}; }
  [[nodiscard]] Continue final_suspend() const noexcept { return {continuation}; }
  void unhandled_exception() { error = std::current_exception(); }
};

}  // namespace detail

template <class T>
class Task;

namespace detail {

template <class T>
struct TaskPromise : TaskPromiseBase {
  std::optional<T> value;
  Task<T> get_return_object();
  template <class U>
  void return_value(U&& v)
  {
    value.emplace(std::forward<U>(v));
  }
};

template <>
struct TaskPromise<void> : TaskPromiseBase {
  Task<void> get_return_object();
  void return_void() const noexcept {}
};

}  // namespace detail

/// A step of a process that may wait: a coroutine that returns T to the one that awaits it
/// (`T x = co_await step();`). It starts when awaited, and resumes its awaiter when it returns.
template <class T = void>
class [[nodiscard]] Task {
public:
  using promise_type = detail::TaskPromise<T>;

  explicit Task(std::coroutine_handle<promise_type> h) : h_(h) {}
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  Task& operator=(Task&&) = delete;
  ~Task()
  {
    if (h_)
      h_.destroy();
  }

  [[nodiscard]] bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept
  {
    h_.promise().continuation = awaiting;
    return h_;
  }
  T await_resume()
  {
    if (h_.promise().error)
      std::rethrow_exception(h_.promise().error);
    if constexpr (!std::is_void_v<T>)
      return std::move(*h_.promise().value);
  }

private:
  std::coroutine_handle<promise_type> h_;
};

namespace detail {

template <class T>
Task<T> TaskPromise<T>::get_return_object()
{
  return Task<T>(std::coroutine_handle<TaskPromise<T>>::from_promise(*this));
}

inline Task<void> TaskPromise<void>::get_return_object()
{
  return Task<void>(std::coroutine_handle<TaskPromise<void>>::from_promise(*this));
}

}  // namespace detail

/// A process: the top-level coroutine the host owns (a process body returns Process).
class [[nodiscard]] Process {
public:
  struct promise_type : detail::FrameAllocated {
    ProcessHost* host = nullptr;
    long id = 0;
    Process get_return_object() { return Process(std::coroutine_handle<promise_type>::from_promise(*this)); }
    [[nodiscard]] std::suspend_always initial_suspend() const noexcept { return {}; }
    struct Final {
      [[nodiscard]] bool await_ready() const noexcept { return false; }
      void await_suspend(std::coroutine_handle<promise_type> h) const noexcept;
      void await_resume() const noexcept {}
    };
    [[nodiscard]] Final final_suspend() const noexcept { return {}; }
    void return_void() const noexcept {}
    void unhandled_exception() const;
  };

  Process(Process&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  Process& operator=(Process&&) = delete;
  ~Process()
  {
    if (h_)
      h_.destroy();
  }

private:
  friend class ProcessHost;
  explicit Process(std::coroutine_handle<promise_type> h) : h_(h) {}
  std::coroutine_handle<promise_type> h_;
};

/// One SimGrid actor that runs many processes (see the top of this file).
class ProcessHost {
public:
  /// A timer's owner is told when it fires, with the token it was set with.
  using TimerFn = void (*)(void* owner, long token);
  /// Withdraws a process's wait (a timer, an inbox registration) so that it can be ended there.
  using CancelFn = void (*)(void* wait);

  /// A process as the host keeps it; its waits hold a pointer to it (stable while it lives).
  struct Proc {
    long id = 0;
    long group = 0;
    std::string name;
    std::coroutine_handle<Process::promise_type> handle;
    std::shared_ptr<void> body;
    CancelFn cancel = nullptr;  // set while it waits on something that can be withdrawn
    void* wait = nullptr;
    bool killed = false;
  };

  ProcessHost() : wake_(sg4::Semaphore::create(0)) {}
  ProcessHost(const ProcessHost&) = delete;
  ProcessHost& operator=(const ProcessHost&) = delete;
  ~ProcessHost();

  /// Adds a process whose body is `body()` (a coroutine member or a callable returning Process); the
  /// host keeps `body` alive as long as the process. It first runs when the host next runs its ready
  /// processes, in the order of spawn().
  /// `group`: kill_group(group) ends it with the others of its group.
  template <class Body>
  void spawn(std::string name, Body body, long group = 0)
  {
    auto owned = std::make_shared<Body>(std::move(body));
    Process p = (*owned)();
    add(std::move(name), std::move(p), std::move(owned), group);
  }

  /// The body of the host's actor: runs the processes until the simulation ends. A process's
  /// exception is rethrown here, out of the actor's body.
  void run();

  /// Resumes `h`, a coroutine of process `p`, when the host next runs its ready processes (after
  /// those already ready). Callable from any actor: it wakes the host if it sleeps.
  void ready(std::coroutine_handle<> h, Proc* p);
  /// The process being resumed now (nullptr outside a resume): what a wait records as its waiter.
  [[nodiscard]] Proc* running() const { return running_; }
  /// Process `p` suspends on a wait that `cancel(wait)` withdraws: it may be ended there.
  static void waits(Proc* p, CancelFn cancel, void* wait)
  {
    p->cancel = cancel;
    p->wait = wait;
  }
  /// Ends the processes of `group` (see the top of this file).
  void kill_group(long group);
  /// Processes of `group` alive (spawned, neither returned nor ended).
  [[nodiscard]] size_t processes_in(long group) const;

  /// Tells `fn(owner, token)` at simulated date `t` (timers of one date in the order they were set);
  /// returns the timer's handle (never 0).
  long at(double t, TimerFn fn, void* owner, long token);
  /// The timer will not fire: `timer` is the handle at() returned, for a timer that has not fired.
  void cancel(long timer) { slots_[static_cast<size_t>(timer - 1)].fn = nullptr; }

  /// The host whose process is running now (nullptr outside the host's actor).
  [[nodiscard]] static ProcessHost* current() { return current_; }

  /// Processes alive (spawned, not returned).
  [[nodiscard]] size_t processes() const { return alive_.size(); }

  /// Runs `wait` (a blocking SimGrid wait) on one of the host's waiting actors, reused from job to
  /// job (an actor that ends costs SimGrid an exception to unwind its stack), a new one when all are
  /// busy; then, on that actor, `after` and readies `then` (of process `p`), waking the host once.
  void run_on_actor(std::function<void()> wait, std::function<void()> after, std::coroutine_handle<> then, Proc* p);

private:
  friend struct Process::promise_type;
  // A timer in the heap: its date, its order among timers of one date, and its slot, which holds
  // what to tell (no TimerFn once cancelled). A slot is reused only once its entry has left the heap.
  struct Timer {
    double t;
    long order;
    long slot;
  };
  struct TimerSlot {
    TimerFn fn;
    void* owner;
    long token;
  };
  struct Later {
    bool operator()(const Timer& a, const Timer& b) const { return a.t != b.t ? a.t > b.t : a.order > b.order; }
  };
  void add(std::string name, Process p, std::shared_ptr<void> body, long group);
  void finished(long id);
  /// Destroys the frames of the processes that returned, and ends the killed ones that wait.
  void reap();
  void end(long id);
  void failed(std::exception_ptr e);
  /// Fires the live timers due by `t`, in order.
  void fire_due(double t);
  void run_ready();

  static inline ProcessHost* current_ = nullptr;

  sg4::SemaphorePtr wake_;
  bool sleeping_ = false;
  std::vector<std::pair<std::coroutine_handle<>, Proc*>> ready_;
  Proc* running_ = nullptr;
  size_t ready_at_ = 0;  // ready_[ready_at_..] are still to run
  std::priority_queue<Timer, std::vector<Timer>, Later> timers_;
  std::vector<TimerSlot> slots_;
  std::vector<long> free_slots_;
  long next_order_ = 1;
  long next_process_ = 1;
  std::unordered_map<long, Proc> alive_;
  std::unordered_map<long, std::vector<long>> groups_;  // the live processes of each group
  std::vector<long> done_;                              // returned, to destroy once the resume that ended them is over
  std::vector<long> kills_;  // killed, to end where they wait once the current resume is over
  std::exception_ptr error_;
  // The waiting actors: each runs its job when its semaphore is released, then is idle again.
  struct Waiter {
    sg4::SemaphorePtr go = sg4::Semaphore::create(0);
    std::function<void()> wait;
    std::function<void()> after;
    std::coroutine_handle<> then;
    Proc* proc = nullptr;
  };
  int holding_ = 0;  // > 0: ready() does not wake the host (a waiting actor's completion, at once)
  std::vector<std::unique_ptr<Waiter>> waiters_;
  std::vector<Waiter*> idle_;
};

/// `co_await sleep_until(t)`: the process resumes at simulated date t (at once if it has passed).
class SleepUntil {
public:
  explicit SleepUntil(double t) : t_(t) {}
  [[nodiscard]] bool await_ready() const { return t_ <= sg4::Engine::get_clock(); }
  void await_suspend(std::coroutine_handle<> h);
  void await_resume() const noexcept {}

private:
  static void fire(void* owner, long token);
  static void withdraw(void* wait);
  double t_;
  std::coroutine_handle<> h_;
  ProcessHost* host_ = nullptr;
  ProcessHost::Proc* proc_ = nullptr;
  long timer_ = 0;
};

[[nodiscard]] inline SleepUntil sleep_until(double t) { return SleepUntil(t); }

/// `co_await on_actor(wait, after)`: runs `wait`, a blocking SimGrid wait (a transfer, an execution)
/// that returns whether it completed, on one of the host's waiting actors (ProcessHost::run_on_actor),
/// then `after(completed)` on that actor at once (what must follow the completion without anything
/// in between), and resumes the process with the result. A process cannot wait on a SimGrid activity
/// itself: the host would block.
class OnActor {
public:
  OnActor(std::function<bool()> wait, std::function<void(bool)> after)
      : wait_(std::move(wait)), after_(std::move(after))
  {}
  [[nodiscard]] bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h);
  bool await_resume() const
  {
    if (error_)
      std::rethrow_exception(error_);
    return completed_;
  }

private:
  std::function<bool()> wait_;
  std::function<void(bool)> after_;
  bool completed_ = false;
  std::exception_ptr error_;
};

[[nodiscard]] inline OnActor on_actor(std::function<bool()> wait, std::function<void(bool)> after = nullptr)
{
  return OnActor(std::move(wait), std::move(after));
}

}  // namespace fleetsim::sim
