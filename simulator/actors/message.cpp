#include "message.hpp"

#include <mutex>

namespace fleetsim::sim {

void Inbox::post(Message m)
{
  // Actors run one at a time, so the queue needs no lock: the semaphore only wakes the owner, and
  // only when it waits (one simcall, where a mutex and a condition variable took four or five).
  queue_.push_back(std::move(m));
  if (waiting_) {
    waiting_ = false;
    wake_->release();
  }
}

std::optional<Message> Inbox::wait(double deadline)
{
  std::deque<Message>* from = !kept_.empty() ? &kept_ : &queue_;
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
  Message m = std::move(from->front());
  from->pop_front();
  return m;
}

}  // namespace fleetsim::sim
