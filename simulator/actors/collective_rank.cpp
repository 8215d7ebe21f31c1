#include "collective_rank.hpp"

namespace fleetsim::sim {

void index_flows(CollectiveShared& shared)
{
  const auto& plan = *shared.plan;
  const auto n = static_cast<size_t>(plan.ranks);
  shared.outgoing.assign(plan.steps.size(), std::vector<std::vector<models::Flow>>(n));
  shared.incoming.assign(plan.steps.size(), std::vector<int>(n, 0));
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    for (const auto& f : plan.steps[s].flows) {
      shared.outgoing[s][static_cast<size_t>(f.src)].push_back(f);
      if (f.dst != shared.sink_rank)
        shared.incoming[s][static_cast<size_t>(f.dst)]++;
    }
  }
  shared.step_seconds.assign(plan.steps.size(), 0.0);
}

void launch_collective(CollectiveShared& shared, const models::CollectivePlan& plan, bool full,
                       const std::vector<sg4::Host*>& hosts, sg4::Host* sink, double background_bytes)
{
  shared.plan = &plan;
  shared.full = full;
  shared.sink = sink;
  shared.sink_rank = sink != nullptr ? plan.ranks : -1;
  shared.background_bytes = background_bytes;
  if (sink != nullptr) {
    constexpr int kFlowsPerReceiver = 128;
    const int receivers = (plan.ranks + kFlowsPerReceiver - 1) / kFlowsPerReceiver;
    shared.sink_incoming.assign(plan.steps.size(), std::vector<int>(static_cast<size_t>(receivers), 0));
    shared.background_incoming.assign(static_cast<size_t>(receivers), 0);
    for (int k = 0; k < receivers; ++k) {
      shared.sink_boxes.push_back(sg4::Mailbox::by_name("sink" + std::to_string(k)));
      shared.background_boxes.push_back(sg4::Mailbox::by_name("sink-background" + std::to_string(k)));
    }
    for (size_t s = 0; s < plan.steps.size(); ++s)
      for (const auto& f : plan.steps[s].flows)
        if (f.dst == shared.sink_rank)
          shared.sink_incoming[s][static_cast<size_t>(f.src % receivers)]++;
    if (background_bytes > 0)
      for (int r = 0; r < plan.ranks; ++r)
        shared.background_incoming[static_cast<size_t>(r % receivers)]++;
    for (int k = 0; k < receivers; ++k)
      sg4::Actor::create("sink" + std::to_string(k), sink, SinkReceiver(shared, k));
  }
  for (int r = 0; r < plan.ranks; ++r)
    shared.inbox.push_back(sg4::Mailbox::by_name("rank" + std::to_string(r)));
  shared.barrier = sg4::Barrier::create(static_cast<unsigned>(plan.ranks));
  index_flows(shared);
  for (int r = 0; r < plan.ranks; ++r)
    sg4::Actor::create("rank" + std::to_string(r), hosts[static_cast<size_t>(r)], CollectiveRank(shared, r));
}

void CollectiveRank::exchange(size_t step) const
{
  static int payload = 0;  // flows carry bytes, not data
  // Every receive is posted before waiting: a transfer starts only once both ends are posted, so
  // receiving one message at a time would serialise a rank's incoming flows.
  std::vector<sg4::CommPtr> comms;
  const auto r = static_cast<size_t>(rank_);
  for (const auto& f : shared_.outgoing[step][r]) {
    if (f.dst == shared_.sink_rank)
      comms.push_back(
          shared_.sink_boxes[r % shared_.sink_boxes.size()]->put_async(&payload, static_cast<uint64_t>(f.bytes)));
    else
      comms.push_back(shared_.inbox[static_cast<size_t>(f.dst)]->put_async(&payload, static_cast<uint64_t>(f.bytes)));
  }
  std::vector<int*> received(static_cast<size_t>(shared_.incoming[step][r]), nullptr);
  for (auto& slot : received)
    comms.push_back(shared_.inbox[r]->get_async<int>(&slot));
  sg4::Comm::wait_all(comms);
}

void CollectiveRank::operator()() const
{
  const auto& plan = *shared_.plan;
  static int payload = 0;
  sg4::CommPtr background;
  if (shared_.background_bytes > 0)
    background = shared_.background_boxes[static_cast<size_t>(rank_) % shared_.background_boxes.size()]->put_async(
        &payload, static_cast<uint64_t>(shared_.background_bytes));
  for (size_t s = 0; s < plan.steps.size(); ++s) {
    const long reps = shared_.full ? plan.steps[s].repetitions : 1;
    shared_.barrier->wait();
    const double t0 = sg4::Engine::get_clock();
    for (long r = 0; r < reps; ++r) {
      exchange(s);
      shared_.barrier->wait();  // a step ends when its last flow lands
    }
    if (rank_ == 0)
      shared_.step_seconds[s] = (sg4::Engine::get_clock() - t0) / static_cast<double>(reps);
  }
  if (background)
    background->cancel();
}

void SinkReceiver::operator()() const
{
  const auto k = static_cast<size_t>(index_);
  // Background transfers never finish: their receives are posted and left pending (the pending
  // list keeps them alive); the senders cancel them when the timed steps are over.
  std::vector<int*> background(static_cast<size_t>(shared_.background_incoming[k]), nullptr);
  std::vector<sg4::CommPtr> pending;
  for (auto& slot : background)
    pending.push_back(shared_.background_boxes[k]->get_async<int>(&slot));
  for (const auto& per_step : shared_.sink_incoming) {
    std::vector<int*> slots(static_cast<size_t>(per_step[k]), nullptr);
    std::vector<sg4::CommPtr> comms;
    for (auto& slot : slots)
      comms.push_back(shared_.sink_boxes[k]->get_async<int>(&slot));
    sg4::Comm::wait_all(comms);
  }
  // Stay alive until the senders cancel: an actor that ends takes its pending transfers with it.
  for (auto& c : pending) {
    try {
      c->wait();
    } catch (const simgrid::Exception&) {
      // cancelled by its sender: the timed steps are over
    }
  }
}

}  // namespace fleetsim::sim
