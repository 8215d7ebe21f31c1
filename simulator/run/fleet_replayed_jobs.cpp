#include "fleet_replayed_jobs.hpp"

#include "models/core/invariant.hpp"
#include "models/core/random_stream.hpp"
#include "models/fleet/replayed_time.hpp"
#include "simulator/actors/failure_injector.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

namespace fleetsim::sim {

namespace mf = models::fleet;

namespace {

// The scenario a replayed job runs: its own when it sets keys of its own (FleetJobDecl::own), else
// the fleet's.
const scenario::Scenario& own_scenario(const scenario::Scenario& s, const mf::JobSpec& j)
{
  for (const scenario::FleetJobDecl& d : s.workload.jobs)
    if (d.own && j.origin == "workload.jobs." + d.name)
      return *d.own;
  return s;
}

}  // namespace

FleetReplayedJobs::FleetReplayedJobs(const scenario::Scenario& s, mf::Workload& workload, std::uint64_t seed) : s_(s)
{
  // A job's step follows from its scenario (the fleet's or its own) and its GPUs: the copies of a job
  // (`count`) and jobs alike share one resolution.
  for (size_t j = 0; j < workload.size(); ++j)
    if (workload[j].work_job) {
      // A unit of work: its tokens are its seconds of work, its step one of them (work_step()).
      mf::JobSpec& spec = workload[j];
      spec.tokens = spec.work;
      auto known = steps_.find({nullptr, 0});
      if (known == steps_.end())
        known = steps_.emplace(std::pair{nullptr, 0L}, work_step()).first;
      Job job;
      job.source = &s;
      job.spec = spec;
      // Its checkpoints go through the storage with checkpoint_size_per_gpu (its own client); the
      // fleet's state, which does not run it, never sees them (JobSpec::checkpoint_bytes stays 0).
      if (spec.checkpoint_interval > 0)
        job.spec.checkpoint_bytes = s.workload.checkpoint_size_per_gpu * static_cast<double>(spec.gpus);
      job.step = &known->second;
      job.seed = jobs_.empty() ? seed : models::RandomStream(seed, "fleet/jobs/" + spec.id).next();
      jobs_.emplace(static_cast<long>(j), std::move(job));
    } else if (workload[j].replayed) {
      mf::JobSpec& spec = workload[j];
      const scenario::Scenario& source = own_scenario(s, spec);
      auto known = steps_.find({&source, spec.gpus});
      if (known == steps_.end())
        known = steps_.emplace(std::pair{&source, spec.gpus}, resolve_step(replayed_job_scenario(source, spec))).first;
      const ResolvedStep& step = known->second;
      // Its tokens and their training time at the nominal rate (the scheduler's estimate of its
      // run): given one, the other follows. A job declared by work trains that long's tokens.
      const double tokens_per_s = source.step.workload.global_batch_tokens / step.breakdown.step_time.si();
      if (spec.tokens > 0)
        spec.work = spec.tokens / tokens_per_s;
      else if (spec.work > 0)
        spec.tokens = spec.work * tokens_per_s;
      Job job;
      job.source = &source;
      job.spec.gpus = spec.gpus;
      job.spec.tokens = spec.tokens;
      job.step = &step;
      job.seed = jobs_.empty() ? seed : models::RandomStream(seed, "fleet/jobs/" + workload[j].id).next();
      jobs_.emplace(static_cast<long>(j), std::move(job));
    }
}

void FleetReplayedJobs::add_clients(const mf::Workload& workload, std::vector<StorageClient>& clients)
{
  for (auto& [j, job] : jobs_) {
    job.client = static_cast<int>(clients.size());
    const long gpn = job.source->fleet.gpus_per_node;
    clients.push_back({workload[static_cast<size_t>(j)].id, (job.spec.gpus + gpn - 1) / gpn});
  }
}

long FleetReplayedJobs::use_pool(models::NodePool& pool, const mf::FleetConfig& config, std::uint64_t seed)
{
  pool_ = &pool;
  keeper_.emplace(s_, pool, seed);
  const long scheduled = config.nodes - config.spare_nodes;
  if (jobs_.empty() || scheduled <= 0)
    return others_ = -1;
  std::vector<long> nodes(static_cast<size_t>(scheduled));
  std::iota(nodes.begin(), nodes.end(), 0L);
  others_ = pool.add_job(scheduled);
  pool.place(others_, nodes);
  return others_;
}

void FleetReplayedJobs::start(long j, const mf::FleetState& fleet, const Platform& platform,
                              const JobRuntime::Spawn& spawn, ProcessHost& host, Inbox<FleetMessage>& inbox)
{
  Job& job = jobs_.at(j);
  std::vector<long> nodes;
  for (const auto& part : fleet.placement_of(j).parts) {
    nodes.push_back(part.first);
    if (others_ >= 0 && pool_->job_of(part.first) == others_)
      pool_->let_go(part.first);
  }
  if (job.job != nullptr) {  // placed again after a requeue: it goes on
    pool_->place(job.table, nodes);
    job.job->runtime().placed();
    return;
  }
  // (its token target set)
  scenario::Scenario js = job.spec.work_job ? work_job_scenario(*job.source, job.spec)
                                            : replayed_job_scenario(*job.source, job.spec);
  job.table = seat_job(*pool_, js, nodes, job.seed);
  job.nodes = static_cast<long>(nodes.size());
  if (jobs_.size() == 1)
    keeper_->set_spare_owner(job.table);  // the spares are its reserve, as the replay's
  if (host_ == nullptr) {
    host_ = &host;
    keeper_->on_return([this, &inbox](long node) {
      if (owed_ > 0)
        inbox.post(msg::NodeBack{node});
    });
  }
  job.job = std::make_unique<ReplayedJob>(std::move(js), job.seed, *job.step, *pool_, *keeper_, job.table);
  if (jobs_.size() > 1)
    job.job->share_the_fleet();
  job.job->on_finished([&inbox, j] { inbox.post(msg::JobEnded{j}); });
  job.job->on_requeue([&inbox, j] { inbox.post(msg::JobRequeued{j}); });
  job.job->start(platform, job.client, spawn, host, {}, j + 1);  // host group 0 is the fleet's own
}

void FleetReplayedJobs::end(long j, mf::FleetState& fleet)
{
  Job& job = jobs_.at(j);
  host_->kill_group(j + 1);
  keeper_->detach(job.table);  // the nodes it lost come back to the pool directly
  std::vector<long> held;
  for (long slot = 0; slot < pool_->job_slots(job.table); ++slot)
    if (const long n = pool_->node_in(job.table, slot); n >= 0)
      held.push_back(n);
  pool_->release(job.table);
  const double t = sg4::Engine::get_clock();
  fleet.end_replayed(j, t);
  owed_ += job.nodes;
  give_back(held, fleet);
  close(j, job, fleet, t);
}

void FleetReplayedJobs::requeue(long j, mf::FleetState& fleet)
{
  Job& job = jobs_.at(j);
  job.job->runtime().leave_keeper();  // the nodes it lost come back to the pool directly
  std::vector<long> left;             // its nodes, which it let go (JobScheduler::requeue): given back first
  for (const auto& part : fleet.placement_of(j).parts)
    left.push_back(part.first);
  fleet.requeue_replayed(j, sg4::Engine::get_clock());
  owed_ += job.nodes;
  give_back(left, fleet);
}

void FleetReplayedJobs::close(long j, Job& job, mf::FleetState& fleet, double t)
{
  RunResult result = job.job->finish();
  fleet.close_replayed(j, mf::replayed_time(result.report), t);
  closed_.push_back({j, job.job->scenario(), std::move(result)});
  // Its runtime goes once none of its processes is left: one still waiting on an actor (a transfer
  // in flight) ends when that wait returns, and tells the runtime's inbox first.
  retired_.emplace_back(j + 1, std::move(job.job));
  std::erase_if(retired_, [this](const auto& r) { return host_->processes_in(r.first) == 0; });
}

void FleetReplayedJobs::node_back(long node, mf::FleetState& fleet) { give_back({node}, fleet); }

void FleetReplayedJobs::give_back(const std::vector<long>& first, mf::FleetState& fleet)
{
  const models::NodePool& pool = *pool_;
  const auto kept_idle = [&pool](long n) { return pool.state(n) == models::NodeState::Idle && pool.job_of(n) < 0; };
  std::vector<long> out;
  std::vector<bool> chosen(static_cast<size_t>(pool.size()), false);
  const auto choose = [&](long n) {
    if (owed_ > 0 && !chosen[static_cast<size_t>(n)] && kept_idle(n)) {
      chosen[static_cast<size_t>(n)] = true;
      out.push_back(n);
      --owed_;
    }
  };
  for (long n : first)
    choose(n);
  for (long n = 0; n < pool.size() && owed_ > 0; ++n)
    choose(n);
  for (long n : out)
    pool_->hold(others_, n);  // (others_ >= 0: a fleet with a replayed job schedules some nodes)
  fleet.reclaim(out, sg4::Engine::get_clock());
}

void FleetReplayedJobs::strike(const msg::Failure& f)
{
  if (jobs_.empty() || !strikes_nodes(s_.causes.at(static_cast<size_t>(f.cause))))
    return;
  const models::NodePool& pool = *pool_;
  const long others = others_;
  keeper_->strike(f, [&pool, others](long n) { return others < 0 || pool.job_of(n) != others; });
}

void FleetReplayedJobs::finish(mf::FleetState& fleet, FleetResult& partial, double horizon)
{
  for (auto& [j, job] : jobs_)
    if (job.job != nullptr)  // (null: still waiting in the queue, or ended and closed)
      close(j, job, fleet, horizon);
  std::sort(closed_.begin(), closed_.end(), [](const auto& a, const auto& b) { return a.job < b.job; });
  partial.replayed = std::move(closed_);
}

}  // namespace fleetsim::sim
