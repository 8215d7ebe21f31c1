// What several built-in scopes share: blocks of GPUs, and a node drawn with thinning.
#include "builtin_scopes.hpp"

#include "models/resilience/node_pool.hpp"
#include "models/core/random_stream.hpp"

#include <algorithm>

namespace fleetsim::models {

GpuRange block_of(long index, long per, const FleetShape& fleet)
{
  const long first = index * per;
  return {first, std::max(0L, std::min(per, fleet.gpus - first))};
}

std::optional<Strike> draw_node(RandomStream& which, const NodePool& pool, const FleetShape& cluster, bool gpu)
{
  // Thinning (models/resilience/node_pool.hpp): the candidate is discarded when its node is down, or beyond the
  // current lemon weights.
  const auto size = static_cast<std::uint64_t>(pool.size());
  const int gpn = cluster.gpus_per_node;
  std::optional<long> node;
  long index = 0;
  if (pool.weighted()) {
    node = pool.pick(which.uniform() * static_cast<double>(size));
    index = gpu && node ? *node * gpn + static_cast<long>(which.below(static_cast<std::uint64_t>(gpn)))
                        : node.value_or(0);
  } else if (gpu) {
    index = static_cast<long>(which.below(static_cast<std::uint64_t>(cluster.gpus)));
    node = pool.up(index / gpn) ? std::optional<long>(index / gpn) : std::nullopt;
  } else {
    index = static_cast<long>(which.below(size));
    node = pool.up(index) ? std::optional<long>(index) : std::nullopt;
  }
  if (!node)
    return std::nullopt;
  return Strike{index, *node, 1};
}

}  // namespace fleetsim::models
