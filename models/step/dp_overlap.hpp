#pragma once
// Data-parallel traffic beside a pipeline stage's compute, as pure arithmetic the simulated step's
// actors spend (simulator/actors/pipeline_stage.cpp): bucketed overlap of a chunk's collectives with
// its first forward and last backward (ParallelLayout::overlap_data_parallel), and how much of the
// traffic runs under compute (FabricParams::overlap_slowdown). Times in seconds.

#include <utility>
#include <vector>

namespace fleetsim::models {

/// A chunk's parameters gathered in `buckets` buckets, the last arriving at `gathered` after an
/// all-gather of `all_gather` seconds: its first forward may start when the first bucket is there.
/// Without buckets (0), when all of them are.
[[nodiscard]] double first_bucket_arrival(double gathered, double all_gather, int buckets);

/// ... and that forward, of `pass` seconds of compute, cannot end before the last bucket's arrival plus
/// the last bucket's share of the pass. Without buckets, `gathered` (the pass started after it).
[[nodiscard]] double last_bucket_done(double gathered, double pass, int buckets);

/// A chunk's gradient reduce-scatter of `seconds`, after (or, bucketed, during) its last backward pass
/// [started, ended), on a stream free from `free`: [start, end). Bucketed, the first bucket is ready
/// 1/n into the pass and the last at its end, so the reduce-scatter ends no earlier than one bucket's
/// share after the pass.
struct StreamSpan {
  double start = 0;
  double end = 0;
};
[[nodiscard]] StreamSpan reduce_scatter_span(double started, double ended, double free, double seconds, int buckets);

/// Seconds one stage's DP stream is busy in a step: a chunk's all-gather and reduce-scatter once per
/// step (`all_gather`, `reduce_scatter` seconds each), or, with sharded weights (ZeRO-3), two gathers
/// (forward and backward) and a reduce-scatter per micro-batch.
[[nodiscard]] double dp_stream_seconds(int micro_batches, int chunks, bool sharded_weights, double all_gather,
                                       double reduce_scatter);

/// Seconds of `traffic` that run while the stage computes (`busy`: disjoint compute spans).
using Spans = std::vector<std::pair<double, double>>;
[[nodiscard]] double hidden_seconds(const Spans& busy, const Spans& traffic);

}  // namespace fleetsim::models
