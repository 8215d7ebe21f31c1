#include "message.hpp"

namespace fleetsim::sim {

void send(sg4::Mailbox* to, Message m)
{
  // put_init(...)->detach(): fire and forget (put_async()->detach() aborts in 3.32).
  to->put_init(new Message(std::move(m)), 0)->detach();
}

Inbox::~Inbox()
{
  // Inboxes die when SimGrid kills the daemons at the end of the window: no simcall is allowed
  // then, so a pending receive is left to the engine's teardown.
  delete slot_;
}

std::optional<Message> Inbox::wait(double deadline, sg4::ActivityPtr activity, bool* activity_done)
{
  if (activity_done != nullptr)
    *activity_done = false;
  if (!kept_.empty()) {
    Message m = std::move(kept_.front());
    kept_.pop_front();
    return m;
  }
  if (!pending_)
    pending_ = mailbox_->get_async<Message>(&slot_);
  std::vector<sg4::ActivityPtr> acts{pending_};
  if (activity)
    acts.push_back(activity);
  double timeout = -1;
  if (deadline >= 0) {
    timeout = deadline - sg4::Engine::get_clock();
    if (timeout < 0)
      timeout = 0;
  }
  ssize_t which = -1;
  if (pending_->test())
    which = 0;
  else if (activity && activity->test())
    which = 1;
  else
    which = sg4::Activity::wait_any_for(acts, timeout);
  if (which == 0) {
    Message m = std::move(*slot_);
    delete slot_;
    slot_ = nullptr;
    pending_ = nullptr;
    return m;
  }
  if (which == 1 && activity_done != nullptr)
    *activity_done = true;
  return std::nullopt;
}

}  // namespace fleetsim::sim
