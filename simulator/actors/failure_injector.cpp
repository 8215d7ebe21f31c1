#include "failure_injector.hpp"

#include "node_keeper.hpp"

#include "models/core/random_stream.hpp"
#include "models/resilience/run_plan.hpp"
#include "simulator/logging/logging.hpp"

#include <functional>
#include <queue>
#include <tuple>
#include <vector>

namespace fleetsim::sim {

Process FailureInjector::operator()() const
{
  const scenario::Scenario& sc = w_.scenario;
  const models::FailureCause& cause = sc.causes.at(static_cast<size_t>(cause_));
  const models::NodePool& pool = w_.pool;
  const int gpn = sc.fleet.gpus_per_node;
  // Hardware causes strike the whole cluster, spares included; a job-scope cause only the job.
  models::FleetShape cluster = sc.fleet;
  cluster.gpus += sc.capacity.spare_nodes * gpn;
  const models::FailureScopeModel& scope = cause.scope.model();
  const bool whole_job = scope.effect() != models::ScopeEffect::Nodes;
  const double rate = models::fleet_rate_per_second(cause, whole_job ? sc.fleet : cluster);
  models::RandomStream arrivals(w_.seed, "failures/" + cause.name + "/arrivals");
  models::RandomStream which(w_.seed, "failures/" + cause.name + "/components");
  double t = now();  // the job's draws begin when it starts (a fleet's job may start late)
  while (true) {
    t += arrivals.exponential(rate);
    if (!(t < w_.horizon))
      co_return;
    co_await sleep_until(t);
    // The scope draws the component (models/resilience/scopes/), thinned against the pool.
    const std::optional<models::Strike> strike = scope.draw(which, pool, cluster);
    if (!strike)
      continue;
    const long index = strike->index;
    msg::Failure m;
    m.cause = cause_;
    m.first_node = strike->first_node;
    m.nodes = strike->nodes;
    m.component = index;
    const models::GpuRange down = models::blast_radius(cause.scope, index, whole_job ? sc.fleet : cluster);
    m.first_gpu = down.first;
    m.gpus_down = down.count;
    FLEETSIM_LOG(Failures, debug, "{} fails: {}, {} GPUs down", cause.name, models::component_label(cause.scope, index),
                 m.gpus_down);
    if (w_.failures)
      w_.failures(m);
    else
      w_.scheduler.post(m);
  }
}

bool strikes_nodes(const models::FailureCause& cause)
{
  return cause.scope.model().effect() == models::ScopeEffect::Nodes;
}

void spawn_node_failures(EventSourceWiring w, NodeKeeper& keeper, ProcessHost& host)
{
  w.failures = [&keeper](msg::Failure f) { keeper.strike(f); };
  const auto& causes = w.scenario.causes;
  for (size_t i = 0; i < causes.size(); ++i)
    if (strikes_nodes(causes[i]))
      host.spawn("failures-" + causes[i].name, FailureInjector(w, static_cast<int>(i)));
}

Process AlarmClock::operator()() const
{
  // Pending alarms, earliest first; ties in the order they were set.
  using Alarm = std::tuple<double, long, SchedulerMessage>;
  auto later = [](const Alarm& a, const Alarm& b) {
    return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) > std::get<0>(b) : std::get<1>(a) > std::get<1>(b);
  };
  std::priority_queue<Alarm, std::vector<Alarm>, decltype(later)> pending(later);
  long order = 0;
  while (true) {
    auto m = co_await requests_.next(pending.empty() ? -1 : std::get<0>(pending.top()));
    if (m) {
      const double due = now() + m->after;
      pending.emplace(due, order++, std::move(m->message));
      continue;
    }
    SchedulerMessage due = std::get<2>(pending.top());
    pending.pop();
    scheduler_.post(std::move(due));
  }
}

Process SlowdownInjector::operator()() const
{
  const models::StragglerSpec& st = w_.scenario.stragglers;
  if (!(st.episode_interval > 0) || !(st.episode_speed < 1))
    co_return;
  const long nodes = w_.pool.size();
  const double rate = static_cast<double>(nodes) / st.episode_interval;
  models::RandomStream arrivals(w_.seed, "stragglers/episodes/arrivals");
  models::RandomStream which(w_.seed, "stragglers/episodes/nodes");
  models::RandomStream lasting(w_.seed, "stragglers/episodes/durations");
  double t = now();  // the job's draws begin when it starts (a fleet's job may start late)
  for (long id = 1;; ++id) {
    t += arrivals.exponential(rate);
    if (!(t < w_.horizon))
      co_return;
    co_await sleep_until(t);
    msg::SlowStart m;
    m.episode = id;
    m.node = static_cast<long>(which.below(static_cast<std::uint64_t>(nodes)));
    m.duration = st.episode_exponential ? lasting.exponential(1.0 / st.episode_duration) : st.episode_duration;
    w_.scheduler.post(m);
  }
}

Process MaintenanceCalendar::operator()() const
{
  const auto& planned = w_.scenario.planned;
  if (planned.count <= 0)
    co_return;
  const double rate = models::rate_per_second(planned.count, planned.window);
  models::RandomStream gaps(w_.seed, "planned/arrivals");
  const double start = now();  // the job's calendar begins when it starts (a fleet's job may start late)
  double t = start;
  for (long k = 0;; ++k) {
    t = planned.poisson ? t + gaps.exponential(rate) : start + models::uniform_arrival_time(k, rate);
    if (!(t < w_.horizon))
      co_return;
    co_await sleep_until(t);
    FLEETSIM_LOG(Scheduler, debug, "planned maintenance is due");
    w_.scheduler.post(msg::Planned{});
  }
}

}  // namespace fleetsim::sim
