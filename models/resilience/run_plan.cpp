#include "run_plan.hpp"

#include "models/core/check.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace fleetsim::models {

double uniform_arrival_time(long k, double rate)
{
  FLEETSIM_CHECK(rate > 0, "a positive rate");
  return (static_cast<double>(k) + 0.5) / rate;
}

double rate_per_second(double count, units::Seconds window)
{
  FLEETSIM_CHECK(window.si() > 0, "a positive window");
  return count / window.si();
}

units::Seconds detection_delay(const FailureCause& cause, units::Seconds fallback, units::Seconds watchdog)
{
  return cause.detection.value_or(cause.hang ? watchdog : fallback);
}

long nodes_for_replicas(int dp, long replica_gpus, int gpus_per_node, long job_nodes)
{
  FLEETSIM_CHECK(dp >= 0 && replica_gpus > 0 && gpus_per_node > 0, "replicas of at least one GPU on nodes of at least one GPU");
  return std::min(job_nodes, (dp * replica_gpus + gpus_per_node - 1) / gpus_per_node);
}

int elastic_width(long healthy_nodes, long replica_gpus, int gpus_per_node, int max_dp, long job_nodes)
{
  auto dp = static_cast<int>(std::min<long>(max_dp, healthy_nodes * gpus_per_node / replica_gpus));
  while (dp > 0 && nodes_for_replicas(dp, replica_gpus, gpus_per_node, job_nodes) > healthy_nodes)
    --dp;
  return dp;
}

double elastic_global_batch(double global_batch_tokens, double tokens_per_micro_batch, int dp, int full_dp,
                            bool keep_global)
{
  FLEETSIM_CHECK(dp > 0 && full_dp > 0 && tokens_per_micro_batch > 0, "at least one replica and one token per micro-batch");
  if (!keep_global)
    return global_batch_tokens / full_dp * dp;
  const double m = std::max(1.0, std::round(global_batch_tokens / (tokens_per_micro_batch * dp)));
  return m * tokens_per_micro_batch * dp;
}

std::string component_label(Scope scope, long index)
{
  // A scope of one component (the job, the storage service) is named alone.
  if (scope.model().effect() != ScopeEffect::Nodes)
    return std::string(scope_name(scope));
  return std::string(scope_name(scope)) + ":" + std::to_string(index);
}

double repair_duration(double mean, bool exponential, RandomStream& draws)
{
  const double d = exponential ? draws.exponential(1.0 / mean) : mean;
  return mean > 0 && d > 0 ? d : 0;
}

}  // namespace fleetsim::models
