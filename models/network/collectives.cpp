#include "collectives.hpp"

#include "models/core/check.hpp"

#include <cmath>

namespace fleetsim::models {
namespace {

// Called for every collective of every layout `fleetsim plan` ranks: two compares, predicted taken.
void assert_link(AlphaBeta link)
{
  FLEETSIM_CHECK(link.alpha.si() >= 0.0, "latency must be non-negative");
  FLEETSIM_CHECK(link.beta.si() > 0.0, "bandwidth must be positive");
  (void)link;
}

/// (N-1) * alpha + (N-1)/N * M / beta: one pass around the ring (reduce-scatter or all-gather).
units::Seconds ring_pass_time(units::Bytes bytes, int ranks, AlphaBeta link)
{
  FLEETSIM_CHECK(bytes.si() >= 0.0, "message size must be non-negative");
  assert_link(link);
  if (ranks <= 1)
    return units::Seconds(0.0);
  const double steps = ranks - 1.0;
  const units::Bytes sent = bytes * (steps / ranks);
  return link.alpha * steps + sent / link.beta;
}

}  // namespace

units::Seconds ring_allreduce_time(units::Bytes bytes, int ranks, AlphaBeta link)
{
  // Reduce-scatter followed by all-gather: 2(N-1) alpha + 2(N-1)/N M / beta.
  return ring_pass_time(bytes, ranks, link) * 2.0;
}

units::Seconds ring_reduce_scatter_time(units::Bytes bytes, int ranks, AlphaBeta link)
{
  return ring_pass_time(bytes, ranks, link);
}

units::Seconds ring_all_gather_time(units::Bytes bytes, int ranks, AlphaBeta link)
{
  return ring_pass_time(bytes, ranks, link);
}

units::Bytes ring_allreduce_bytes_per_rank(units::Bytes bytes, int ranks)
{
  FLEETSIM_CHECK(bytes.si() >= 0.0, "message size must be non-negative");
  if (ranks <= 1)
    return units::Bytes(0.0);
  return bytes * (2.0 * (ranks - 1.0) / ranks);
}

units::Seconds p2p_time(units::Bytes bytes, AlphaBeta link)
{
  FLEETSIM_CHECK(bytes.si() >= 0.0, "message size must be non-negative");
  assert_link(link);
  return link.alpha + bytes / link.beta;
}

units::Seconds barrier_time(int ranks, units::Seconds alpha)
{
  FLEETSIM_CHECK(alpha.si() >= 0.0, "latency must be non-negative");
  if (ranks <= 1)
    return units::Seconds(0.0);
  // ceil(log2 N) computed on integers: the number of doublings to reach N.
  int depth = 0;
  for (long reach = 1; reach < ranks; reach *= 2)
    ++depth;
  return alpha * (2.0 * depth);
}

}  // namespace fleetsim::models
