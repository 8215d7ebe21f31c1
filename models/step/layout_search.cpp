#include "layout_search.hpp"

#include "iteration_plan.hpp"

#include <algorithm>
#include <tuple>

namespace fleetsim::models {
namespace {

std::vector<int> divisors(long n, long at_most)
{
  std::vector<int> out;
  for (long d = 1; d <= std::min(n, at_most); ++d)
    if (n % d == 0)
      out.push_back(static_cast<int>(d));
  return out;
}

/// The lightest recomputation under which `in` is consistent and fits; false if none does.
bool fit(StepInputs& in, long gpus)
{
  for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full}) {
    in.workload.recompute = r;
    if (check_step_inputs(in, gpus).empty())
      return true;
  }
  return false;
}

auto rank_key(const LayoutCandidate& c)
{
  const ParallelLayout& l = c.inputs.layout;
  return std::make_tuple(c.step.step_time.si(), l.tp * l.cp * l.pp, l.tp, l.pp, l.cp, l.virtual_stages,
                         l.embedding_chunks, c.inputs.workload.micro_batch_size);
}

// One layout and micro-batch size: skipped when inconsistent or without a schedule, counted, and kept
// with the lightest recomputation that fits.
void consider(StepInputs in, long gpus, SearchStats& st, std::vector<LayoutCandidate>& out)
{
  const Workload& w = in.workload;
  in.accelerator.check_memory = false;
  in.workload.recompute = Recompute::Full;
  if (!check_step_inputs(in, gpus).empty())
    return;  // inconsistent whatever the memory (batch, divisibility)
  const double m =
      w.global_batch_tokens / (static_cast<double>(w.sequence_length) * w.micro_batch_size * in.layout.dp);
  if (!schedule_supported(in.layout.pp, static_cast<int>(m), in.layout.virtual_stages))
    return;  // no 1F1B / interleaved order for this many micro-batches
  ++st.enumerated;
  in.accelerator.check_memory = true;
  if (!fit(in, gpus)) {
    ++st.rejected_memory;
    return;
  }
  out.push_back({in, AnalyticStepModel().step(in), estimate_memory(in)});
}

}  // namespace

std::vector<LayoutCandidate> search_layouts(const StepInputs& base, long gpus, const SearchSpace& space,
                                            SearchStats* stats)
{
  SearchStats local;
  SearchStats& st = stats != nullptr ? *stats : local;
  std::vector<LayoutCandidate> out;
  const Workload& w = base.workload;
  const int ep = std::max(1, base.layout.ep);
  const std::vector<bool> edge_settings =
      space.embedding_chunks.empty() ? std::vector<bool>{base.layout.embedding_chunks} : space.embedding_chunks;
  for (int tp : divisors(space.gpus_per_node, space.gpus_per_node)) {
    if (w.attention_heads % tp != 0)
      continue;
    for (int cp : space.context_parallel) {
      if (gpus % (static_cast<long>(tp) * cp) != 0 || w.sequence_length % cp != 0)
        continue;
      for (int pp : divisors(gpus / (static_cast<long>(tp) * cp), w.layers)) {
        const long dp = gpus / (static_cast<long>(tp) * cp * pp);
        if (dp % ep != 0)
          continue;
        for (int v : space.virtual_stages)
          for (bool edges : edge_settings) {
            ParallelLayout chunked = base.layout;
            chunked.pp = pp;
            chunked.virtual_stages = v;
            chunked.embedding_chunks = edges;
            if (pp == 1 && v > 1)
              continue;  // too few layers or chunks: check_step_inputs (consider) rejects it
            for (int mbs : space.micro_batch_sizes) {
              StepInputs in = base;
              in.layout = chunked;
              in.layout.tp = tp;
              in.layout.cp = cp;
              in.layout.dp = static_cast<int>(dp);
              in.layout.ep = ep;
              in.workload.micro_batch_size = mbs;
              consider(in, gpus, st, out);
            }
          }
      }
    }
  }
  std::sort(out.begin(), out.end(),
            [](const LayoutCandidate& a, const LayoutCandidate& b) { return rank_key(a) < rank_key(b); });
  return out;
}

}  // namespace fleetsim::models
