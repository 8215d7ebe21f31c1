#include "dp_overlap.hpp"

#include <algorithm>

namespace fleetsim::models {

double first_bucket_arrival(double gathered, double all_gather, int buckets)
{
  return buckets > 0 ? gathered - all_gather * (1.0 - 1.0 / buckets) : gathered;
}

double last_bucket_done(double gathered, double pass, int buckets)
{
  return buckets > 0 ? gathered + pass / buckets : gathered;
}

StreamSpan reduce_scatter_span(double started, double ended, double free, double seconds, int buckets)
{
  if (buckets <= 0) {
    const double start = std::max(ended, free);
    return {start, start + seconds};
  }
  const double start = std::max(started + (ended - started) / buckets, free);
  return {start, std::max(start + seconds, ended + seconds / buckets)};
}

double dp_stream_seconds(int micro_batches, int chunks, bool sharded_weights, double all_gather, double reduce_scatter)
{
  if (sharded_weights)
    return static_cast<double>(micro_batches) * chunks * (2.0 * all_gather + reduce_scatter);
  return chunks * (all_gather + reduce_scatter);
}

double hidden_seconds(const Spans& busy, const Spans& traffic)
{
  double hidden = 0;
  for (const auto& [t0, t1] : traffic)
    for (const auto& [b0, b1] : busy)
      hidden += std::max(0.0, std::min(t1, b1) - std::max(t0, b0));
  return hidden;
}

}  // namespace fleetsim::models
