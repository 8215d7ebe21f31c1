#include "storage_channel.hpp"

#include "simulator/logging/logging.hpp"
#include "simulator/platform/storage_system.hpp"

#include <algorithm>

namespace fleetsim::sim {

void StorageQueue::abort(long id)
{
  if (active_id_ == id && active_) {
    active_->cancel();
    return;
  }
  aborted_.push_back(id);
}

Process StorageChannel::operator()() const
{
  while (true) {
    auto m = co_await queue_.requests.next(-1);
    (void)co_await serve(*m);
  }
}

bool StorageChannel::finish(const sg4::ActivityPtr& a, long id, const std::function<bool()>& wait) const
{
  queue_.active_id_ = id;
  queue_.active_ = a;
  const bool completed = wait();
  queue_.active_id_ = 0;
  queue_.active_ = nullptr;
  return completed;
}

bool StorageChannel::take_aborted(long id) const
{
  auto it = std::find(queue_.aborted_.begin(), queue_.aborted_.end(), id);
  if (it == queue_.aborted_.end())
    return false;
  queue_.aborted_.erase(it);
  return true;
}

bool StorageChannel::transfer(const msg::IoRequest& request) const
{
  if (take_aborted(request.id))  // aborted since the process handed it over
    return false;
  if (sg4::ExecPtr open = storage_.start_metadata(request.files)) {
    auto opened = [&open] {
      try {
        open->wait();
        return true;
      } catch (const simgrid::CancelException&) {
        return false;
      }
    };
    if (!finish(open, request.id, opened))
      return false;
  }
  FLEETSIM_LOG(Checkpoint, trace, "storage {} of {:.4g} GB starts", request.write ? "write" : "read",
               request.bytes / 1e9);
  sg4::CommPtr transfer = storage_.start_transfer(client_, request.write, request.bytes);
  return finish(transfer, request.id, [this, &transfer] { return storage_.wait(transfer); });
}

Task<bool> StorageChannel::serve(const msg::IoRequest& request) const
{
  auto aborted = [this, &request] { return take_aborted(request.id); };
  if (aborted())
    co_return false;
  if (sg4::Engine::get_clock() < storage_.back_at) {
    // The storage service is out: the transfer starts when it is back (a checkpoint stalls).
    co_await sleep_until(storage_.back_at);
    if (aborted())
      co_return false;
  }
  if (request.fixed_s > 0) {
    co_await sleep_until(sg4::Engine::get_clock() + request.fixed_s);  // an abort meanwhile is found below
    if (aborted())
      co_return false;
  }
  // The metadata operations and the transfer wait on an actor (process.hpp), one after the other,
  // and the requester hears of the completion from it, at once, as it heard from the channel's
  // actor before: no abort can come between the two.
  co_return co_await on_actor([this, &request] { return transfer(request); },
                              [&request](bool completed) {
                                if (completed)
                                  request.done(msg::IoDone{request.id});
                              });
}

}  // namespace fleetsim::sim
