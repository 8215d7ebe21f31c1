#include "checkpoint_coordinator.hpp"

namespace fleetsim::sim {

void CheckpointCoordinator::operator()() const
{
  Inbox inbox(ctx_.coordinator);
  while (true) {
    auto m = inbox.wait(-1);
    if (!m || (m->type != MessageType::WriteRequest && m->type != MessageType::ReadRequest))
      continue;  // a late Abort for a request that already completed
    if (serve(inbox, *m)) {
      Message done;
      done.type = MessageType::IoDone;
      done.id = m->id;
      send(m->reply_to, std::move(done));
    }
  }
}

bool CheckpointCoordinator::serve(Inbox& inbox, const Message& request) const
{
  auto aborted = [&](const std::optional<Message>& m) {
    return m && m->type == MessageType::Abort && m->id == request.id;
  };
  // Fixed part first (barrier, metadata), then the data transfer.
  if (request.overhead > 0) {
    const double until = ctx_.now() + request.overhead;
    while (true) {
      auto m = inbox.wait(until);
      if (!m)
        break;
      if (aborted(m))
        return false;
    }
  }
  const auto size = static_cast<sg_size_t>(request.bytes);
  sg4::IoPtr io = request.type == MessageType::WriteRequest ? ctx_.storage->write_async(size)
                                                              : ctx_.storage->read_async(size);
  while (true) {
    bool done = false;
    auto m = inbox.wait(-1, io, &done);
    if (done)
      return true;
    if (aborted(m)) {
      io->cancel();
      return false;
    }
  }
}

}  // namespace fleetsim::sim
