#include "fleet_replayed_jobs.hpp"

#include "models/core/invariant.hpp"
#include "models/core/random_stream.hpp"
#include "models/fleet/replayed_time.hpp"
#include "simulator/actors/failure_injector.hpp"

#include <numeric>

namespace fleetsim::sim {

namespace mf = models::fleet;

FleetReplayedJobs::FleetReplayedJobs(const scenario::Scenario& s, const mf::Workload& workload, std::uint64_t seed)
    : s_(s)
{
  for (size_t j = 0; j < workload.size(); ++j)
    if (workload[j].replayed) {
      scenario::Scenario js = replayed_job_scenario(s, workload[j]);
      const ResolvedStep step = resolve_step(js);
      const std::uint64_t own = jobs_.empty() ? seed
                                              : models::RandomStream(seed, "fleet/jobs/" + workload[j].id).next();
      jobs_.emplace(static_cast<long>(j), Job{std::move(js), step, own, 0, nullptr});
    }
}

void FleetReplayedJobs::add_clients(const mf::Workload& workload, std::vector<StorageClient>& clients)
{
  for (auto& [j, job] : jobs_) {
    job.client = static_cast<int>(clients.size());
    const int gpn = job.s.fleet.gpus_per_node;
    clients.push_back({workload[static_cast<size_t>(j)].id, (job.s.fleet.gpus + gpn - 1) / gpn});
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
                              const JobRuntime::Spawn& spawn, ProcessHost& host)
{
  Job& job = jobs_.at(j);
  std::vector<long> nodes;
  for (const auto& part : fleet.placement_of(j).parts) {
    nodes.push_back(part.first);
    if (others_ >= 0 && pool_->job_of(part.first) == others_)
      pool_->let_go(part.first);
  }
  const long table = seat_job(*pool_, job.s, nodes, job.seed);
  if (jobs_.size() == 1)
    keeper_->set_spare_owner(table);  // the spares are its reserve, as the replay's
  job.job = std::make_unique<ReplayedJob>(job.s, job.seed, job.step, *pool_, *keeper_, table);
  job.job->start(platform, job.client, spawn, host, {});
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
  for (auto& [j, job] : jobs_) {
    const std::string& id = fleet.specs()[static_cast<size_t>(j)].id;  // (a lambda cannot capture a binding in C++17)
    models::check_invariant(job.job != nullptr, "every replayed job starts at 0",
                            [&id] { return "replayed job " + id + " never started"; });
    RunResult result = job.job->finish(partial.storage);
    fleet.close_replayed(j, mf::replayed_time(result.report), horizon);
    partial.replayed.push_back({j, job.job->scenario(), std::move(result)});
  }
}

}  // namespace fleetsim::sim
