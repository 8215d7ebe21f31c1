#include "checkpoint_coordinator.hpp"

#include "simulator/logging/logging.hpp"

#include <algorithm>

namespace fleetsim::sim {

void CoordinatorLink::abort(long id)
{
  if (active_id_ == id && active_io_) {
    active_io_->cancel();
    return;
  }
  aborted_.push_back(id);
}

void CheckpointCoordinator::operator()() const
{
  CoordinatorLink& link = *ctx_.coordinator;
  while (true) {
    auto m = link.requests.wait(-1);
    if (serve(link, *m)) {
      Message done;
      done.type = MessageType::IoDone;
      done.id = m->id;
      m->reply_to->post(std::move(done));
    }
  }
}

bool CheckpointCoordinator::serve(CoordinatorLink& link, const Message& request) const
{
  auto aborted = [&link, &request] {
    auto it = std::find(link.aborted_.begin(), link.aborted_.end(), request.id);
    if (it == link.aborted_.end())
      return false;
    link.aborted_.erase(it);
    return true;
  };
  if (aborted())
    return false;
  if (ctx_.now() < link.storage_back) {
    // The storage service is out: the transfer starts when it is back (a checkpoint stalls).
    sg4::this_actor::sleep_until(link.storage_back);
    if (aborted())
      return false;
  }
  const auto size = static_cast<sg_size_t>(request.bytes);
  FLEETSIM_LOG(Checkpoint, trace, "storage {} of {:.4g} GB starts", request.type == MessageType::WriteRequest ? "write" : "read",
               request.bytes / 1e9);
  link.active_id_ = request.id;
  link.active_io_ = request.type == MessageType::WriteRequest ? ctx_.storage->write_async(size)
                                                              : ctx_.storage->read_async(size);
  bool completed = true;
  try {
    link.active_io_->wait();
  } catch (const simgrid::CancelException&) {
    completed = false;
  }
  link.active_id_ = 0;
  link.active_io_ = nullptr;
  return completed;
}

}  // namespace fleetsim::sim
