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
      shared.incoming[s][static_cast<size_t>(f.dst)]++;
    }
  }
  shared.step_seconds.assign(plan.steps.size(), 0.0);
}

void launch_collective(CollectiveShared& shared, const models::CollectivePlan& plan, bool full,
                       const std::vector<sg4::Host*>& hosts)
{
  shared.plan = &plan;
  shared.full = full;
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
  for (const auto& f : shared_.outgoing[step][r])
    comms.push_back(shared_.inbox[static_cast<size_t>(f.dst)]->put_async(&payload, static_cast<uint64_t>(f.bytes)));
  std::vector<int*> received(static_cast<size_t>(shared_.incoming[step][r]), nullptr);
  for (auto& slot : received)
    comms.push_back(shared_.inbox[r]->get_async<int>(&slot));
  sg4::Comm::wait_all(comms);
}

void CollectiveRank::operator()() const
{
  const auto& plan = *shared_.plan;
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
}

}  // namespace fleetsim::sim
