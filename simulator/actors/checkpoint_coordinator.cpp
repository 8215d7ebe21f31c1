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
  while (true) {
    auto m = link_.requests.wait(-1);
    if (serve(*m))
      m->done(msg::IoDone{m->id});
  }
}

bool CheckpointCoordinator::serve(const msg::IoRequest& request) const
{
  auto aborted = [this, &request] {
    auto it = std::find(link_.aborted_.begin(), link_.aborted_.end(), request.id);
    if (it == link_.aborted_.end())
      return false;
    link_.aborted_.erase(it);
    return true;
  };
  if (aborted())
    return false;
  if (sg4::Engine::get_clock() < link_.storage_back) {
    // The storage service is out: the transfer starts when it is back (a checkpoint stalls).
    sg4::this_actor::sleep_until(link_.storage_back);
    if (aborted())
      return false;
  }
  const auto size = static_cast<sg_size_t>(request.bytes);
  FLEETSIM_LOG(Checkpoint, trace, "storage {} of {:.4g} GB starts", request.write ? "write" : "read",
               request.bytes / 1e9);
  link_.active_id_ = request.id;
  link_.active_io_ = request.write ? storage_->write_async(size) : storage_->read_async(size);
  bool completed = true;
  try {
    link_.active_io_->wait();
  } catch (const simgrid::CancelException&) {
    completed = false;
  }
  link_.active_id_ = 0;
  link_.active_io_ = nullptr;
  return completed;
}

}  // namespace fleetsim::sim
