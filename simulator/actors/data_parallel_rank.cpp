#include "data_parallel_rank.hpp"

#include "models/core/check.hpp"

#include <algorithm>
#include <string>

namespace fleetsim::sim {

DataParallelFlows make_data_parallel_flows(const models::IterationPlan& plan, const std::vector<sg4::Host*>& hosts)
{
  DataParallelFlows f;
  const auto& l = plan.layout;
  const int steps = plan.dp_group - 1;
  if (steps <= 0)
    return f;
  f.stages = l.pp;
  f.collectives = 2 * l.virtual_stages;
  f.reduce_ratio = plan.dp_reduce_ratio;
  const auto n = hosts.size();
  f.hosts = hosts;
  f.next.assign(n, -1);
  f.prev.assign(n, -1);
  f.bytes.assign(n, 0.0);
  f.extra_latency.assign(n, 0.0);
  f.stage.assign(n, -1);
  f.members.assign(static_cast<size_t>(l.pp), 0);
  std::vector<sg4::Link*> route;
  for (const models::Flow& flow : plan.dp_ring_step.flows) {
    const auto r = static_cast<size_t>(flow.src);
    f.next[r] = flow.dst;
    f.prev[static_cast<size_t>(flow.dst)] = flow.src;
    f.bytes[r] = steps * flow.bytes;
    route.clear();
    double latency = 0;
    hosts[r]->route_to(hosts[static_cast<size_t>(flow.dst)], route, &latency);
    f.extra_latency[r] = (steps - 1) * latency;
    const int s = (flow.src / (l.tp * l.cp)) % l.pp;
    f.stage[r] = s;
    f.members[static_cast<size_t>(s)]++;
  }
  for (size_t r = 0; r < n; ++r)
    f.box.push_back(f.next[r] >= 0 ? sg4::Mailbox::by_name("dp-stream" + std::to_string(r)) : nullptr);
  return f;
}

DataParallelStreams::DataParallelStreams(const DataParallelFlows& flows, int chunks) : flows_(flows)
{
  FLEETSIM_CHECK(flows.collectives == 2 * chunks, "one all-gather and one reduce-scatter per chunk");
  const auto k = static_cast<size_t>(flows.collectives);
  const double now = sg4::Engine::get_clock();
  stages_.resize(static_cast<size_t>(flows.stages));
  for (Stage& st : stages_) {
    st.released.assign(k, -1.0);
    st.chunk.assign(k, -1);
    st.arrived.assign(k, 0);
    st.done.assign(k, -1.0);
    for (int c = 0; c < chunks; ++c) {  // the all-gathers can start at once
      st.released[static_cast<size_t>(c)] = now;
      st.chunk[static_cast<size_t>(c)] = c;
    }
  }
}

void DataParallelStreams::launch()
{
  for (size_t r = 0; r < flows_.hosts.size(); ++r)
    if (flows_.next[r] >= 0)
      sg4::Actor::create("dp-stream" + std::to_string(r), flows_.hosts[r],
                         DataParallelRank(*this, static_cast<int>(r)));
}

void DataParallelStreams::release(int stage, int chunk)
{
  Stage& st = stages_[static_cast<size_t>(stage)];
  {
    std::unique_lock lock(*mutex_);
    const auto k = static_cast<size_t>(std::find(st.released.begin(), st.released.end(), -1.0) - st.released.begin());
    FLEETSIM_CHECK(k < st.released.size(), "a chunk's gradients are released once");
    st.released[k] = sg4::Engine::get_clock();
    st.chunk[k] = chunk;
  }
  st.changed->notify_all();
}

void DataParallelStreams::wait_released(int stage, int k)
{
  Stage& st = stages_[static_cast<size_t>(stage)];
  std::unique_lock lock(*mutex_);
  while (st.released[static_cast<size_t>(k)] < 0)
    st.changed->wait(lock);
}

void DataParallelStreams::finished(int stage, int k)
{
  Stage& st = stages_[static_cast<size_t>(stage)];
  const auto i = static_cast<size_t>(k);
  {
    std::unique_lock lock(*mutex_);
    if (++st.arrived[i] < flows_.members[static_cast<size_t>(stage)])
      return;
    st.done[i] = sg4::Engine::get_clock();
  }
  st.changed->notify_all();
}

double DataParallelStreams::wait_done(int stage, int k)
{
  Stage& st = stages_[static_cast<size_t>(stage)];
  std::unique_lock lock(*mutex_);
  while (st.done[static_cast<size_t>(k)] < 0)
    st.changed->wait(lock);
  return st.done[static_cast<size_t>(k)];
}

std::vector<DataParallelStreams::Span> DataParallelStreams::spans(int stage) const
{
  const Stage& st = stages_[static_cast<size_t>(stage)];
  std::vector<Span> out;
  double free = st.released.empty() ? 0.0 : st.released.front();
  for (size_t k = 0; k < st.done.size(); ++k) {
    const double start = std::max(free, st.released[k]);
    out.push_back({start, st.done[k], static_cast<int>(k) < flows_.collectives / 2, st.chunk[k]});
    free = st.done[k];
  }
  return out;
}

void DataParallelRank::operator()() const
{
  static int payload = 0;  // flows carry bytes, not data
  const auto& f = streams_.flows();
  const auto r = static_cast<size_t>(rank_);
  const int stage = f.stage[r];
  const auto from = static_cast<size_t>(f.prev[r]);
  for (int k = 0; k < f.collectives; ++k) {
    streams_.wait_released(stage, k);
    int* received = nullptr;
    // The first half are the all-gathers; a reduce-scatter moves the gradients in their own precision.
    const double bytes = k < f.collectives / 2 ? f.bytes[r] : f.bytes[r] * f.reduce_ratio;
    const sg4::CommPtr out = f.box[static_cast<size_t>(f.next[r])]->put_async(&payload, static_cast<uint64_t>(bytes));
    const sg4::CommPtr in = f.box[r]->get_async<int>(&received);
    out->wait();
    in->wait();
    // The ring's other steps: each pays its route latency again.
    const double done = std::max(out->get_finish_time() + f.extra_latency[r],
                                 in->get_finish_time() + f.extra_latency[from]);
    if (sg4::Engine::get_clock() < done)
      sg4::this_actor::sleep_until(done);
    streams_.finished(stage, k);
  }
}

}  // namespace fleetsim::sim
