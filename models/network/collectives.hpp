#pragma once
// Analytic alpha-beta costs of collectives (Hockney model): a message of m bytes between two ranks
// takes alpha + m / beta. These are the oracle that simulated collectives are checked against.

#include "models/core/units.hpp"

namespace fleetsim::models {

/// Link parameters of one collective: per-message latency alpha and per-rank bandwidth beta.
struct AlphaBeta {
  units::Seconds alpha;
  units::BytesPerSecond beta;
};

/// Ring all-reduce of `bytes` over `ranks`: 2(N-1)*alpha + 2(N-1)/N * M/beta. Zero for N <= 1.
[[nodiscard]] units::Seconds ring_allreduce_time(units::Bytes bytes, int ranks, AlphaBeta link);

/// Ring reduce-scatter (or all-gather) of a `bytes` buffer: (N-1)*alpha + (N-1)/N * M/beta.
[[nodiscard]] units::Seconds ring_reduce_scatter_time(units::Bytes bytes, int ranks, AlphaBeta link);
[[nodiscard]] units::Seconds ring_all_gather_time(units::Bytes bytes, int ranks, AlphaBeta link);

/// Bytes each rank sends in a ring all-reduce: 2(N-1)/N * M.
[[nodiscard]] units::Bytes ring_allreduce_bytes_per_rank(units::Bytes bytes, int ranks);

/// Point-to-point transfer: alpha + M/beta.
[[nodiscard]] units::Seconds p2p_time(units::Bytes bytes, AlphaBeta link);

/// Latency-bound barrier or small all-reduce as a binary tree: 2*ceil(log2 N)*alpha.
[[nodiscard]] units::Seconds barrier_time(int ranks, units::Seconds alpha);

}  // namespace fleetsim::models
