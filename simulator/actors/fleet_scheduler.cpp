#include "fleet_scheduler.hpp"

#include "models/resilience/run_plan.hpp"
#include "simulator/platform/storage_system.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>

namespace fleetsim::sim {

namespace mf = models::fleet;

FleetStorage storing_jobs(const mf::Workload& workload, int gpus_per_node, long nodes,
                          std::vector<StorageClient>& clients)
{
  FleetStorage storage;
  bool from_nodes = false;
  for (size_t j = 0; j < workload.size(); ++j)
    if (workload[j].replayed) {
      continue;  // (its runtime has a client of its own: FleetReplayedJobs::add_clients)
    } else if (workload[j].node_storage) {
      from_nodes = true;
    } else if (workload[j].checkpoint_bytes > 0) {
      storage.slot[static_cast<long>(j)] = clients.size();
      clients.push_back({workload[j].id, (workload[j].gpus + gpus_per_node - 1) / gpus_per_node});
    }
  storage.queues.resize(clients.size());
  storage.in_flight.assign(clients.size(), 0);
  if (from_nodes) {
    storage.first_node_client = static_cast<int>(clients.size());
    for (long n = 0; n < nodes; ++n)
      clients.push_back({"node" + std::to_string(n), 1});
  }
  return storage;
}

void NodeTransfer::abort()
{
  aborted = true;
  if (open)
    open->cancel();
  for (const sg4::CommPtr& c : comms)
    c->cancel();
}

Process FleetScheduler::operator()()
{
  while (true) {
    const std::optional<double> due = next_due();
    std::optional<FleetMessage> m = co_await inbox_.next(due ? *due : -1);
    // The shared fabric's and the data's rates since their last change, before anything changes them.
    const double now = sg4::Engine::get_clock();
    if (fabric_ != nullptr && fabric_->due() && *fabric_->due() <= now)
      fabric_->read(now);
    if (data_ != nullptr && data_->due() && *data_->due() <= now)
      data_->read(now);
    if (!m) {
      fleet_.fire_timers(sg4::Engine::get_clock());
      for (long n : fleet_.take_repaired()) {
        pool_.repaired(n);
        if (hold_in_ >= 0)
          pool_.hold(hold_in_, n);
      }
    } else {
      std::visit(Overloaded{[&](const msg::Submit& e) { fleet_.submit(e.job, sg4::Engine::get_clock()); },
                            [&](const msg::Failure& f) { on_failure(f); },
                            [&](const msg::IoFinished& d) { fleet_.io_done(d.job, d.epoch, sg4::Engine::get_clock()); },
                            [](const msg::Recheck&) {}, [&](const msg::JobEnded& e) { end_replayed_(e.job); },
                            [&](const msg::NodeBack& e) { node_back_(e.node); },
                            [&](const msg::JobRequeued& e) { requeue_replayed_(e.job); }},
                 *m);
    }
    for (long job : fleet_.take_started_replayed())
      start_replayed_(job);
    start_io();
    follow_placements(sg4::Engine::get_clock());
  }
}

std::optional<double> FleetScheduler::next_due() const
{
  std::optional<double> due = fleet_.next_timer();
  for (const std::optional<double> reading : {fabric_ != nullptr ? fabric_->due() : std::nullopt,
                                              data_ != nullptr ? data_->due() : std::nullopt})
    if (reading)
      due = std::min(due.value_or(*reading), *reading);
  return due;
}

void FleetScheduler::follow_placements(double t)
{
  const std::vector<long> changed = fleet_.take_placement_changes();
  if (fabric_ != nullptr)
    fabric_->update(fleet_, t, changed);
  if (data_ != nullptr)
    data_->update(fleet_, t, changed);
}

// The storage transfers the fleet's state asked for: posted to the job's channel, or aborted.
void FleetScheduler::start_io()
{
  for (const mf::IoRequest& io : fleet_.take_io()) {
    if (fleet_.specs()[static_cast<size_t>(io.job)].node_storage) {
      start_node_io(io);
      continue;
    }
    const size_t slot = storage_.slot.at(io.job);
    long& active = storage_.in_flight[slot];
    if (io.abort) {
      if (active != 0)
        storage_.queues[slot].abort(active);
      active = 0;
      continue;
    }
    active = storage_.next_id++;
    Inbox<FleetMessage>& inbox = inbox_;
    storage_.queues[slot].requests.post(
        {active, io.write, io.bytes, io.files, [&inbox, job = io.job, epoch = io.epoch, &active](msg::IoDone) {
           active = 0;
           inbox.post(msg::IoFinished{job, epoch});
         }});
  }
}

void FleetScheduler::start_node_io(const mf::IoRequest& io)
{
  if (auto it = storage_.node_transfers.find(io.job); it != storage_.node_transfers.end()) {
    it->second->abort();  // an abort, or a transfer overtaken by the job's next one
    storage_.node_transfers.erase(it);
  }
  if (io.abort)
    return;
  auto transfer = std::make_shared<NodeTransfer>();
  storage_.node_transfers[io.job] = transfer;
  const mf::Placement placement = fleet_.placement_of(io.job);
  const double gpus = static_cast<double>(placement.gpus());
  StorageSystem& system = storage_system_;
  Inbox<FleetMessage>& inbox = inbox_;
  FleetStorage& storage = storage_;
  spawn_("io-" + fleet_.specs()[static_cast<size_t>(io.job)].id, [=, &system, &inbox, &storage] {
    // As a storage channel serves a request (storage_channel.cpp): the outage, the files, the bytes.
    if (sg4::Engine::get_clock() < system.back_at)
      sg4::this_actor::sleep_until(system.back_at);
    if (transfer->aborted)
      return;
    if ((transfer->open = system.start_metadata(io.files))) {
      try {
        transfer->open->wait();
      } catch (const simgrid::CancelException&) {
        return;
      }
    }
    if (transfer->aborted)
      return;
    // A stream per node, its share of the bytes; a job of more than kMaxStreams nodes writes in
    // kMaxStreams streams of consecutive nodes, each from its first node (SimGrid's cost per
    // communication; docs/models/fleet.md says what it changes).
    const size_t n = placement.parts.size();
    const size_t streams = std::min(n, FleetStorage::kMaxStreams);
    for (size_t k = 0; k < streams; ++k) {
      double share = 0;
      for (size_t i = k * n / streams; i < (k + 1) * n / streams; ++i)
        share += static_cast<double>(placement.parts[i].second);
      const long node = placement.parts[k * n / streams].first;
      transfer->comms.push_back(system.start_transfer(storage.first_node_client + static_cast<int>(node), io.write,
                                                      io.bytes * share / gpus));
    }
    bool done = true;
    for (const sg4::CommPtr& c : transfer->comms)
      done = system.wait(c) && done;
    if (!done || transfer->aborted)
      return;
    if (auto it = storage.node_transfers.find(io.job); it != storage.node_transfers.end() && it->second == transfer)
      storage.node_transfers.erase(it);
    inbox.post(msg::IoFinished{io.job, io.epoch});
  });
}

void FleetScheduler::on_failure(const msg::Failure& f)
{
  const double t = sg4::Engine::get_clock();
  const models::FailureCause& cause = s_.causes.at(static_cast<size_t>(f.cause));
  switch (cause.scope.model().effect()) {
    case models::ScopeEffect::Nodes: {
      // (The replayed jobs' nodes and the spares are the node keeper's: not down here.)
      const std::vector<long> down = fleet_.node_failure(f.cause, f.first_node, f.nodes, t);
      for (long n : down)
        pool_.fail(n, 1, t, cause.scope.model().own_fault());
      const double mean = cause.repair ? cause.repair->si() : s_.capacity.repair_time.si();
      for (long n : down) {
        const double d = models::repair_duration(mean, s_.capacity.repair_exponential, repair_times_);
        fleet_.repair_due(n, t + d);
        ++repairs_;
      }
      break;
    }
    case models::ScopeEffect::WholeJob:
      // A software fault strikes the job on a GPU drawn uniformly: GPU-hours of jobs set its rate.
      fleet_.gpu_job_failure(f.cause, static_cast<long>(victims_.below(static_cast<std::uint64_t>(fleet_.gpus()))), t);
      break;
    case models::ScopeEffect::StorageOutage: {
      // A fleet with a replayed job has no other job (the loader refuses a storage cause beside
      // one): the job's runtime draws the outages and blocks the storage itself.
      if (fleet_.has_replayed_job())
        break;
      // The storage service is down for the cause's repair time, as in a replay: transfers wait for
      // it in their channels, and restores of the other jobs too (FleetState::storage_outage).
      const double back = t + cause.repair.value_or(s_.capacity.repair_time).si();
      storage_system_.back_at = std::max(storage_system_.back_at, back);
      fleet_.storage_outage(storage_system_.back_at);
      fleet_.all_jobs_failure(f.cause, t);
      break;
    }
  }
}

}  // namespace fleetsim::sim
