#include "pipeline_stage.hpp"

#include "simulator/actors/data_parallel_rank.hpp"

#include <algorithm>
#include <cstdio>

namespace fleetsim::sim {

using models::PassKind;
using models::PipelineOp;

namespace {

std::tuple<int, int, int, int> key(int stage, const PipelineOp& op)
{
  return {stage, static_cast<int>(op.kind), op.micro_batch, op.chunk};
}

std::string pass_name(const PipelineOp& op)
{
  char buf[32];
  std::snprintf(buf, sizeof buf, "%c%d.%d", op.kind == PassKind::Forward ? 'F' : 'B', op.micro_batch, op.chunk);
  return buf;
}

}  // namespace

bool sends_output(int stages, int chunks, int stage, const PipelineOp& op)
{
  if (stages == 1)
    return false;
  if (op.kind == PassKind::Forward)
    return !(stage == stages - 1 && op.chunk == chunks - 1);  // the last virtual stage turns around
  return !(stage == 0 && op.chunk == 0);                      // the first virtual stage ends backward
}

void PipelineStage::record(int track, std::string name, double start, double end) const
{
  if (shared_.record && end > start)
    shared_.slices.push_back({track, stage_, std::move(name), start - shared_.origin, end - start});
}

double PipelineStage::wait_for_input(const PipelineOp& op) const
{
  const auto dep = models::pipeline_dependency(shared_.stages, shared_.chunks, stage_, op);
  if (!dep.has_producer)
    return 0.0;
  const auto k = key(dep.stage, dep.op);
  std::unique_lock lock(*shared_.mutex);
  auto it = shared_.finished.find(k);
  while (it == shared_.finished.end()) {
    shared_.changed->wait(lock);
    it = shared_.finished.find(k);
  }
  return it->second + (dep.stage == stage_ ? 0.0 : shared_.times.transfer);
}

std::vector<double> PipelineStage::timed_all_gathers(double& dp_free) const
{
  std::vector<double> gathered(static_cast<size_t>(shared_.chunks), shared_.origin);
  if (shared_.dp != nullptr)
    return gathered;  // streamed: parameters_ready() waits for the flows
  for (int c = 0; c < shared_.chunks; ++c) {
    record(3, "all-gather chunk " + std::to_string(c), dp_free, dp_free + shared_.times.dp_all_gather);
    dp_free += shared_.times.dp_all_gather;
    gathered[static_cast<size_t>(c)] = dp_free;
  }
  return gathered;
}

double PipelineStage::parameters_ready(const std::vector<double>& gathered, int chunk) const
{
  // Streamed: the all-gathers run in chunk order, collective `chunk` is chunk's.
  return shared_.dp != nullptr ? shared_.dp->wait_done(stage_, chunk) : gathered[static_cast<size_t>(chunk)];
}

void PipelineStage::reduce_scatter(int chunk, double ready, double& dp_free) const
{
  if (shared_.dp != nullptr) {
    shared_.dp->release(stage_, chunk);
    return;
  }
  const double rs_start = std::max(ready, dp_free);
  dp_free = rs_start + shared_.times.dp_reduce_scatter;
  record(3, "reduce-scatter chunk " + std::to_string(chunk), rs_start, dp_free);
}

double PipelineStage::finish_data_parallel(double dp_free) const
{
  const auto s = static_cast<size_t>(stage_);
  if (shared_.dp == nullptr) {
    shared_.dp_busy[s] = shared_.chunks * (shared_.times.dp_all_gather + shared_.times.dp_reduce_scatter);
    return dp_free;
  }
  const double done = shared_.dp->wait_done(stage_, shared_.dp->flows().collectives - 1);
  for (const auto& span : shared_.dp->spans(stage_)) {
    shared_.dp_busy[s] += span.end - span.start;
    record(3, (span.all_gather ? "all-gather chunk " : "reduce-scatter chunk ") + std::to_string(span.chunk),
           span.start, span.end);
  }
  return done;
}

void PipelineStage::operator()() const
{
  const auto& t = shared_.times;
  const auto s = static_cast<size_t>(stage_);
  const auto order = models::pipeline_order(shared_.stages, shared_.micro_batches, shared_.chunks, stage_);
  // The chunk's last backward (or, after the flush, the stage's last) releases its gradients for the
  // reduce-scatter.
  const std::vector<size_t> release = models::gradient_release(order, shared_.chunks, shared_.gradients_after_flush);

  // Parameters are all-gathered chunk by chunk before the first forward needs them.
  double dp_free = shared_.origin;
  const std::vector<double> gathered = timed_all_gathers(dp_free);

  for (size_t i = 0; i < order.size(); ++i) {
    const PipelineOp& op = order[i];
    double ready = std::max(shared_.origin, wait_for_input(op));
    if (op.kind == PassKind::Forward)
      ready = std::max(ready, parameters_ready(gathered, op.chunk));
    if (sg4::Engine::get_clock() < ready)
      sg4::this_actor::sleep_until(ready);
    const double start = sg4::Engine::get_clock();
    sg4::this_actor::execute(models::pass_work(t.forward_flops, t.backward_flops, t.logits_forward_flops, t.logits_backward_flops,
                                               shared_.stages, shared_.chunks, stage_, op));
    const double computed = sg4::Engine::get_clock();
    const bool backward = op.kind == PassKind::Backward;
    const double collectives = backward ? t.backward_collectives : 1.0;
    if (t.tp_per_pass > 0)
      sg4::this_actor::sleep_for(t.tp_per_pass * (backward ? t.tp_backward_collectives : 1.0));
    const double reduced = sg4::Engine::get_clock();
    if (t.cp_per_pass > 0)
      sg4::this_actor::sleep_for(t.cp_per_pass * collectives);
    const double gathered_kv = sg4::Engine::get_clock();
    if (t.ep_per_pass > 0)
      sg4::this_actor::sleep_for(t.ep_per_pass * collectives);
    const double end = sg4::Engine::get_clock();
    shared_.compute[s] += computed - start;
    record(0, pass_name(op), start, end);
    record(1, "TP all-reduces " + pass_name(op), computed, reduced);
    record(4, (op.kind == PassKind::Forward ? "K/V all-gathers " : "K/V gradient reduce-scatters ") + pass_name(op),
           reduced, gathered_kv);
    record(5, "expert all-to-alls " + pass_name(op), gathered_kv, end);
    {
      std::unique_lock lock(*shared_.mutex);
      shared_.finished[key(stage_, op)] = end;
    }
    shared_.changed->notify_all();
    if (sends_output(shared_.stages, shared_.chunks, stage_, op)) {
      shared_.remote_sends[s]++;
      record(2, "send " + pass_name(op), end, end + t.transfer);
    }
    if (op.kind == PassKind::Backward)
      for (int chunk = shared_.chunks - 1; chunk >= 0; --chunk)  // the order the chunks' backwards end in
        if (release[static_cast<size_t>(chunk)] == i)
          reduce_scatter(chunk, end, dp_free);
  }
  const double passes_done = sg4::Engine::get_clock();
  const double reduced = std::max(passes_done, finish_data_parallel(dp_free));
  // The optimizer step runs once the gradients are reduced (memory-bound: a time, not FLOPs).
  shared_.compute[s] += t.optimizer;
  if (t.optimizer > 0)
    record(0, "optimizer step", reduced, reduced + t.optimizer);
  shared_.end[s] = reduced + t.optimizer;
}

}  // namespace fleetsim::sim
