#include "message.hpp"

#include <mutex>

namespace fleetsim::sim {

void Inbox::post(Message m)
{
  // Actors run one at a time, so the queue needs no lock of its own; the mutex exists because
  // SimGrid's condition variable waits on one.
  queue_.push_back(std::move(m));
  cv_->notify_one();
}

std::optional<Message> Inbox::wait(double deadline)
{
  std::deque<Message>* from = !kept_.empty() ? &kept_ : &queue_;
  if (from->empty()) {
    std::unique_lock<sg4::Mutex> lock(*mutex_);
    while (queue_.empty()) {
      if (deadline < 0) {
        cv_->wait(lock);
      } else if (deadline <= sg4::Engine::get_clock() ||
                 cv_->wait_until(lock, deadline) == std::cv_status::timeout) {
        if (queue_.empty())
          return std::nullopt;
      }
    }
    from = &queue_;
  }
  Message m = std::move(from->front());
  from->pop_front();
  return m;
}

}  // namespace fleetsim::sim
