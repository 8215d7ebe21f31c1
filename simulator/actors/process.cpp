#include "process.hpp"

#include "models/core/invariant.hpp"

#include <algorithm>
#include <array>
#include <new>
#include <vector>

namespace fleetsim::sim {

namespace detail {

#if defined(__SANITIZE_ADDRESS__)
#define FLEETSIM_FRAME_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FLEETSIM_FRAME_POOL 0
#endif
#endif
#ifndef FLEETSIM_FRAME_POOL
#define FLEETSIM_FRAME_POOL 1
#endif

namespace {
constexpr std::size_t kFrameGrain = 64;
constexpr std::size_t kFrameClasses = 32;  // frames under 2 KiB are pooled
// Free frames by size class (SimGrid runs every actor on one thread).
std::array<std::vector<void*>, kFrameClasses>& free_frames()
{
  static std::array<std::vector<void*>, kFrameClasses> lists;
  return lists;
}
}  // namespace

void* frame_alloc(std::size_t n)
{
  const std::size_t k = (n + kFrameGrain - 1) / kFrameGrain;
  if (FLEETSIM_FRAME_POOL == 0 || k >= kFrameClasses)
    return ::operator new(n);
  auto& list = free_frames()[k];
  if (list.empty()) {
    const std::size_t bytes = k * kFrameGrain;  // the whole class, so that the frame can serve any of it
    return ::operator new(bytes);
  }
  void* p = list.back();
  list.pop_back();
  return p;
}

void frame_free(void* p, std::size_t n) noexcept
{
  const std::size_t k = (n + kFrameGrain - 1) / kFrameGrain;
  if (FLEETSIM_FRAME_POOL == 0 || k >= kFrameClasses) {
    ::operator delete(p);
    return;
  }
  try {
    free_frames()[k].push_back(p);
  } catch (...) {  // no room to keep it: give it back
    ::operator delete(p);
  }
}

}  // namespace detail

void Process::promise_type::Final::await_suspend(std::coroutine_handle<promise_type> h) const noexcept
{
  // The frame is destroyed by the host once the resume that ended it has returned.
  h.promise().host->finished(h.promise().id);
}

void Process::promise_type::unhandled_exception() const { host->failed(std::current_exception()); }

ProcessHost::~ProcessHost()
{
  // Processes still waiting when the simulation ended: their frames (and the steps they await,
  // owned by those frames) go with the host.
  for (auto& [id, slot] : alive_)
    slot.handle.destroy();
}

void ProcessHost::add(std::string name, Process p, std::shared_ptr<void> body, long group)
{
  const long id = next_process_++;
  auto h = std::exchange(p.h_, {});
  h.promise().host = this;
  h.promise().id = id;
  Proc& proc = alive_.emplace(id, Proc{id, group, std::move(name), h, std::move(body)}).first->second;
  if (group != 0)
    groups_[group].push_back(id);
  ready(h, &proc);
}

void ProcessHost::kill_group(long group)
{
  auto it = groups_.find(group);
  if (it == groups_.end())
    return;
  for (const long id : it->second)
    if (auto p = alive_.find(id); p != alive_.end() && !p->second.killed) {
      p->second.killed = true;
      kills_.push_back(id);
    }
  if (running_ == nullptr)
    reap();  // (called from outside a resume: nothing runs now)
}

size_t ProcessHost::processes_in(long group) const
{
  const auto it = groups_.find(group);
  return it == groups_.end() ? 0 : it->second.size();
}

void ProcessHost::end(long id)
{
  auto it = alive_.find(id);
  if (const long group = it->second.group; group != 0) {
    std::vector<long>& members = groups_[group];
    members.erase(std::find(members.begin(), members.end(), id));
    if (members.empty())
      groups_.erase(group);
  }
  it->second.handle.destroy();
  alive_.erase(it);
}

void ProcessHost::reap()
{
  for (const long id : done_)
    end(id);
  done_.clear();
  // A killed process that waits is ended now, its wait withdrawn; one that is ready, or whose wait
  // runs on an actor, is ended when its turn to resume comes (run_ready).
  for (const long id : std::exchange(kills_, {}))
    if (auto it = alive_.find(id); it != alive_.end() && it->second.cancel != nullptr) {
      it->second.cancel(it->second.wait);
      end(id);
    }
}

void ProcessHost::finished(long id) { done_.push_back(id); }

void ProcessHost::failed(std::exception_ptr e)
{
  if (!error_)
    error_ = std::move(e);
}

void ProcessHost::ready(std::coroutine_handle<> h, Proc* p)
{
  p->cancel = nullptr;  // its wait is over
  ready_.push_back({h, p});
  if (sleeping_ && holding_ == 0) {
    sleeping_ = false;
    wake_->release();
  }
}

long ProcessHost::at(double t, TimerFn fn, void* owner, long token)
{
  long slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<long>(slots_.size());
    slots_.push_back({fn, owner, token});
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[static_cast<size_t>(slot)] = {fn, owner, token};
  }
  timers_.push(Timer{t, next_order_++, slot});
  return slot + 1;
}

void ProcessHost::fire_due(double t)
{
  while (!timers_.empty() && timers_.top().t <= t) {
    const long slot = timers_.top().slot;
    timers_.pop();
    const TimerSlot due = slots_[static_cast<size_t>(slot)];
    free_slots_.push_back(slot);
    if (due.fn != nullptr)
      due.fn(due.owner, due.token);
  }
}

void ProcessHost::run_ready()
{
  ProcessHost* const outer = current_;
  current_ = this;
  // Resuming a process may make others ready: they run in this same pass, in order.
  if (!kills_.empty())
    reap();
  while (ready_at_ < ready_.size()) {
    const auto [h, p] = ready_[ready_at_++];
    if (p->killed) {
      end(p->id);  // instead of resuming it
      continue;
    }
    running_ = p;
    h.resume();
    running_ = nullptr;
    if (!done_.empty() || !kills_.empty())
      reap();
    if (error_) {
      current_ = outer;
      std::rethrow_exception(std::exchange(error_, nullptr));
    }
  }
  ready_.clear();
  ready_at_ = 0;
  current_ = outer;
}

void ProcessHost::run()
{
  while (true) {
    run_ready();
    // Drop cancelled timers at the front, so that the host never wakes for nothing.
    while (!timers_.empty() && slots_[static_cast<size_t>(timers_.top().slot)].fn == nullptr) {
      free_slots_.push_back(timers_.top().slot);
      timers_.pop();
    }
    const double now = sg4::Engine::get_clock();
    if (!timers_.empty() && timers_.top().t <= now) {
      fire_due(now);
      continue;
    }
    sleeping_ = true;
    if (timers_.empty()) {
      wake_->acquire();
      sleeping_ = false;  // (a wake-up left over from a post that raced a timeout finds it still set)
      continue;
    }
    const double target = timers_.top().t;
    const bool timed_out = wake_->acquire_timeout(target - now);
    sleeping_ = false;
    // A timeout fires what was due by the date slept for (the clock's sum may fall an ulp short of
    // it), as an actor's timed wait did; a post that woke the host fires what is due now.
    fire_due(timed_out ? std::max(target, sg4::Engine::get_clock()) : sg4::Engine::get_clock());
  }
}

void SleepUntil::await_suspend(std::coroutine_handle<> h)
{
  h_ = h;
  host_ = ProcessHost::current();
  proc_ = host_->running();
  timer_ = host_->at(t_, &SleepUntil::fire, this, 0);
  ProcessHost::waits(proc_, &SleepUntil::withdraw, this);
}

void SleepUntil::fire(void* owner, long /*token*/)
{
  auto* self = static_cast<SleepUntil*>(owner);
  self->host_->ready(self->h_, self->proc_);
}

void SleepUntil::withdraw(void* wait)
{
  auto* self = static_cast<SleepUntil*>(wait);
  self->host_->cancel(self->timer_);
}

void ProcessHost::run_on_actor(std::function<void()> wait, std::function<void()> after, std::coroutine_handle<> then,
                               Proc* p)
{
  if (idle_.empty()) {
    waiters_.push_back(std::make_unique<Waiter>());
    Waiter* w = waiters_.back().get();
    sg4::Actor::create("io-wait", sg4::this_actor::get_host(), [this, w] {
      // A daemon, so that the run ends without it; it makes itself one, since SimGrid runs it before
      // its creator resumes. The kill at the end of the run goes through (nothing here catches it).
      sg4::Actor::self()->daemonize();
      while (true) {
        w->go->acquire();
        std::exchange(w->wait, nullptr)();
        // The completion, at once: what follows it, this actor idle again (a process that starts
        // another operation finds it free), the process ready; the host woken once, for all of it.
        ++holding_;
        if (auto after = std::exchange(w->after, nullptr))
          after();
        idle_.push_back(w);
        ready(std::exchange(w->then, {}), std::exchange(w->proc, nullptr));
        if (--holding_ == 0 && sleeping_) {
          sleeping_ = false;
          wake_->release();
        }
      }
    });
    idle_.push_back(w);
  }
  Waiter* w = idle_.back();
  idle_.pop_back();
  w->wait = std::move(wait);
  w->after = std::move(after);
  w->then = then;
  w->proc = p;
  w->go->release();
}

void OnActor::await_suspend(std::coroutine_handle<> h)
{
  ProcessHost* host = ProcessHost::current();
  host->run_on_actor(
      [this] {
        try {
          completed_ = wait_();
        } catch (const models::InvariantViolation&) {
          error_ = std::current_exception();
        }
      },
      [this] {
        if (after_ && !error_)
          after_(completed_);
      },
      h, host->running());
}

}  // namespace fleetsim::sim
