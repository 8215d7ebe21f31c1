#include "failure_injector.hpp"

#include "message.hpp"
#include "models/random_stream.hpp"
#include "models/run_plan.hpp"

#include <functional>
#include <queue>
#include <tuple>
#include <vector>

namespace fleetsim::sim {

void FailureInjector::operator()() const
{
  const scenario::Scenario& sc = *ctx_.scenario;
  const models::FailureCause& cause = sc.causes.at(static_cast<size_t>(cause_));
  const models::NodePool& pool = *ctx_.pool;
  const int gpn = sc.fleet.gpus_per_node;
  // Hardware causes strike the whole cluster, spares included; a job-scope cause only the job.
  models::FleetShape cluster = sc.fleet;
  cluster.gpus += sc.capacity.spare_nodes * gpn;
  const double rate = models::fleet_rate_per_second(cause, cause.scope == models::Scope::Job ? sc.fleet : cluster);
  models::RandomStream arrivals(ctx_.seed, "failures/" + cause.name + "/arrivals");
  models::RandomStream which(ctx_.seed, "failures/" + cause.name + "/components");
  const auto size = static_cast<std::uint64_t>(pool.size());
  double t = 0;
  while (true) {
    t += arrivals.exponential(rate);
    if (!(t < ctx_.horizon))
      return;
    sg4::this_actor::sleep_until(t);
    Message m;
    m.type = MessageType::Failure;
    m.cause = cause_;
    long index = 0;  // component of the cause's scope
    switch (cause.scope) {
      case models::Scope::Job:
        break;
      case models::Scope::Rack:
        index = static_cast<long>(which.below(static_cast<std::uint64_t>(pool.racks())));
        m.first_node = index * pool.nodes_per_rack();
        m.nodes = pool.nodes_per_rack();
        break;
      case models::Scope::Gpu:
      case models::Scope::Node: {
        // Thinning (models/node_pool.hpp): the candidate is discarded when its node is down, or
        // beyond the current lemon weights.
        std::optional<long> node;
        if (pool.weighted()) {
          node = pool.pick(which.uniform() * static_cast<double>(size));
          index = cause.scope == models::Scope::Gpu && node ? *node * gpn + static_cast<long>(which.below(static_cast<std::uint64_t>(gpn)))
                                                            : node.value_or(0);
        } else if (cause.scope == models::Scope::Gpu) {
          index = static_cast<long>(which.below(static_cast<std::uint64_t>(cluster.gpus)));
          node = pool.up(index / gpn) ? std::optional<long>(index / gpn) : std::nullopt;
        } else {
          index = static_cast<long>(which.below(size));
          node = pool.up(index) ? std::optional<long>(index) : std::nullopt;
        }
        if (!node)
          continue;
        m.first_node = *node;
        m.nodes = 1;
        break;
      }
    }
    m.component = models::component_label(cause.scope, index);
    const models::GpuRange down = models::blast_radius(cause.scope, index, cause.scope == models::Scope::Job ? sc.fleet : cluster);
    m.first_gpu = down.first;
    m.gpus_down = down.count;
    ctx_.scheduler->post(std::move(m));
  }
}

void RepairShop::operator()() const
{
  // Nodes under repair, earliest return first; ties in the order they came in.
  using Job = std::tuple<double, long, long>;  // (done at, arrival order, node)
  std::priority_queue<Job, std::vector<Job>, std::greater<>> bench;
  long order = 0;
  while (true) {
    auto m = ctx_.repair_shop->wait(bench.empty() ? -1 : std::get<0>(bench.top()));
    if (m) {
      bench.emplace(ctx_.now() + m->duration, order++, m->node);
      continue;
    }
    Message done;
    done.type = MessageType::Repaired;
    done.node = std::get<2>(bench.top());
    bench.pop();
    ctx_.scheduler->post(std::move(done));
  }
}

void MaintenanceCalendar::operator()() const
{
  const auto& planned = ctx_.scenario->planned;
  if (planned.count <= 0)
    return;
  const double rate = models::rate_per_second(planned.count, planned.window);
  models::RandomStream gaps(ctx_.seed, "planned/arrivals");
  double t = 0;
  for (long k = 0;; ++k) {
    t = planned.poisson ? t + gaps.exponential(rate) : models::uniform_arrival_time(k, rate);
    if (!(t < ctx_.horizon))
      return;
    sg4::this_actor::sleep_until(t);
    Message m;
    m.type = MessageType::Planned;
    ctx_.scheduler->post(std::move(m));
  }
}

}  // namespace fleetsim::sim
