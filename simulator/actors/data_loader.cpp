#include "data_loader.hpp"

#include "simulator/platform/storage_system.hpp"
#include "storage_channel.hpp"

namespace fleetsim::sim {

Process DataLoader::operator()()
{
  Inbox<LoaderMessage>& inbox = w_.inbox;
  // (Its frame holds the watch: when the job's processes end, the storage forgets it.)
  const StorageSystem::Watch watch = w_.storage.observe([&inbox] { inbox.post(msg::StorageChanged{}); });
  following_ = w_.never_quiet;
  w_.demand.following = following_;
  buffer_ = w_.capacity;
  if (following_ && w_.demand.on) {  // the job started training before the loader ran
    demand_ = true;
    epoch_ = w_.demand.epoch;
    step_time_ = w_.demand.step_time;
    next_ = now();
    consume();
  }
  while (true) {
    const double deadline = following_ && demand_ && !starved_ ? next_ : -1;
    if (auto m = co_await w_.inbox.next(deadline))
      on(*m);
    else
      consume();
    update();
  }
}

void DataLoader::on(const LoaderMessage& m)
{
  if (const auto* d = std::get_if<msg::DemandOn>(&m)) {
    const bool resumed = !demand_ || d->epoch != epoch_;
    demand_ = true;
    epoch_ = d->epoch;
    step_time_ = d->step_time;
    if (resumed && following_) {
      next_ = now();  // the first step takes its batch at once
      consume();
    }
  } else if (std::holds_alternative<msg::DemandOff>(m)) {
    demand_ = false;
    starved_ = false;
  } else if (std::holds_alternative<msg::IoDone>(m)) {
    reading_ = false;
    ++buffer_;
    if (starved_) {  // the waiting step takes it at once
      starved_ = false;
      --buffer_;
      next_ = now() + step_time_;
      w_.job.post(msg::Fed{epoch_});
    }
  }
}

void DataLoader::consume()
{
  if (!following_ || !demand_ || starved_)
    return;
  if (buffer_ > 0) {
    --buffer_;
    next_ += step_time_;
    return;
  }
  starved_ = true;
  w_.job.post(msg::Starved{epoch_});
}

void DataLoader::update()
{
  const bool busy = w_.storage.active() > (w_.reads.busy() ? 1 : 0);  // someone else's transfer
  if (!following_ && busy) {
    following_ = true;  // the buffer is full; the next step is one step time away
    buffer_ = w_.capacity;
    demand_ = w_.demand.on;
    epoch_ = w_.demand.epoch;
    step_time_ = w_.demand.step_time;
    next_ = now() + step_time_;
  } else if (following_ && !busy && !reading_ && buffer_ >= w_.capacity && !starved_ && !w_.never_quiet) {
    following_ = false;
  }
  w_.demand.following = following_;
  if (following_ && !reading_ && buffer_ < w_.capacity) {
    reading_ = true;
    Inbox<LoaderMessage>& inbox = w_.inbox;
    w_.reads.requests.post({next_id_++, false, w_.bytes_per_step, 0, [&inbox](msg::IoDone d) { inbox.post(d); }});
  }
}

}  // namespace fleetsim::sim
