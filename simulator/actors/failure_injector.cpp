#include "failure_injector.hpp"

#include "message.hpp"
#include "models/random_stream.hpp"
#include "models/run_plan.hpp"

namespace fleetsim::sim {

void FailureInjector::operator()() const
{
  const models::FailureCause& cause = ctx_.scenario->causes.at(static_cast<size_t>(cause_));
  const double rate = models::fleet_rate_per_second(cause, ctx_.scenario->fleet);
  const auto components = static_cast<std::uint64_t>(models::component_count(cause.scope, ctx_.scenario->fleet));
  models::RandomStream arrivals(ctx_.seed, "failures/" + cause.name + "/arrivals");
  models::RandomStream which(ctx_.seed, "failures/" + cause.name + "/components");
  double t = 0;
  while (true) {
    t += arrivals.exponential(rate);
    if (!(t < ctx_.horizon))
      return;
    sg4::this_actor::sleep_until(t);
    Message m;
    m.type = MessageType::Failure;
    m.cause = cause_;
    const auto index = static_cast<long>(which.below(components));
    m.component = models::component_label(cause.scope, index);
    const models::GpuRange down = models::blast_radius(cause.scope, index, ctx_.scenario->fleet);
    m.first_gpu = down.first;
    m.gpus_down = down.count;
    ctx_.scheduler->post(std::move(m));
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
