#include "pipeline_stage.hpp"

#include "models/step/dp_overlap.hpp"
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

using Spans = PipelineStage::Spans;

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
  const auto dep = models::pipeline_dependency(shared_.stages(), shared_.chunks(), stage_, op);
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
  std::vector<double> gathered(static_cast<size_t>(shared_.chunks()), shared_.origin);
  if (shared_.dp != nullptr || shared_.times.fsdp_units > 0)
    return gathered;  // streamed: parameters_ready() waits for the flows; sharded: each pass gathers
  for (int c = 0; c < shared_.chunks(); ++c) {
    record(3, "all-gather chunk " + std::to_string(c), dp_free, dp_free + shared_.times.dp_all_gather);
    dp_free += shared_.times.dp_all_gather;
    gathered[static_cast<size_t>(c)] = dp_free;
  }
  return gathered;
}

double PipelineStage::parameters_ready(const std::vector<double>& gathered, int chunk) const
{
  // Streamed: the all-gathers run in chunk order, collective `chunk` is chunk's.
  if (shared_.dp != nullptr)
    return shared_.dp->wait_done(stage_, chunk);
  // Bucketed: the forward starts on the first bucket (and cannot end before the last: operator()).
  return models::first_bucket_arrival(gathered[static_cast<size_t>(chunk)], shared_.times.dp_all_gather,
                                      shared_.times.dp_buckets);
}

double PipelineStage::reduce_scatter(int chunk, double started, double ready, double& dp_free) const
{
  if (shared_.dp != nullptr) {
    if (shared_.times.dp_buckets == 0)  // bucketed: released when the last backward began
      shared_.dp->release(stage_, chunk);
    return ready;
  }
  const models::StreamSpan span =
      models::reduce_scatter_span(started, ready, dp_free, shared_.times.dp_reduce_scatter, shared_.times.dp_buckets);
  dp_free = span.end;
  record(3, "reduce-scatter chunk " + std::to_string(chunk), span.start, span.end);
  return span.start;
}

double PipelineStage::finish_data_parallel(double dp_free) const
{
  const auto s = static_cast<size_t>(stage_);
  if (shared_.dp == nullptr) {
    const auto& t = shared_.times;
    shared_.dp_busy[s] = models::dp_stream_seconds(shared_.micro_batches, shared_.chunks(), t.fsdp_units > 0,
                                                   t.dp_all_gather, t.dp_reduce_scatter);
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

models::StreamSpan PipelineStage::sharded_gather(const PipelineOp& op, double ready, double& dp_free) const
{
  const double start = std::max(dp_free, ready);
  dp_free = start + shared_.times.dp_all_gather;
  record(3, "all-gather " + pass_name(op), start, dp_free);
  return {start, dp_free};
}

// The pass's blocking collectives after its compute (TP all-reduces, CP K/V exchanges, EP
// all-to-alls, each exposed): when they are done.
double PipelineStage::blocking_collectives(const PipelineOp& op, double computed) const
{
  const auto& t = shared_.times;
  if (!shared_.layout.chunk_holds_layers(stage_, op.chunk))
    return computed;  // an embedding chunk: no layers, none of their collectives
  const bool backward = op.kind == PassKind::Backward;
  const double collectives = backward ? t.backward_collectives : 1.0;
  if (t.tp_per_pass > 0)
    sg4::this_actor::sleep_for(t.tp_per_pass * (backward ? t.tp_backward_collectives : 1.0));
  const double reduced = sg4::Engine::get_clock();
  if (const double cp = backward ? t.cp_backward_per_pass : t.cp_per_pass; cp > 0)
    sg4::this_actor::sleep_for(cp);
  const double gathered_kv = sg4::Engine::get_clock();
  if (t.ep_per_pass > 0)
    sg4::this_actor::sleep_for(t.ep_per_pass * collectives);
  const double end = sg4::Engine::get_clock();
  record(1, "TP all-reduces " + pass_name(op), computed, reduced);
  record(4, (backward ? "K/V gradient reduce-scatters " : "K/V all-gathers ") + pass_name(op), reduced, gathered_kv);
  record(5, "expert all-to-alls " + pass_name(op), gathered_kv, end);
  return end;
}

// The pass is done at `end`: the stages waiting on it may go, and its output leaves for the next stage.
void PipelineStage::publish(const PipelineOp& op, double end) const
{
  {
    std::unique_lock lock(*shared_.mutex);
    shared_.finished[key(stage_, op)] = end;
  }
  shared_.changed->notify_all();
  if (sends_output(shared_.stages(), shared_.chunks(), stage_, op)) {
    shared_.remote_sends[static_cast<size_t>(stage_)]++;
    record(2, "send " + pass_name(op), end, end + shared_.times.transfer);
  }
}

void PipelineStage::operator()() const
{
  const auto& t = shared_.times;
  const auto s = static_cast<size_t>(stage_);
  const auto order = models::pipeline_order(shared_.stages(), shared_.micro_batches, shared_.chunks(), stage_);
  // The chunk's last backward (or, after the flush, the stage's last) releases its gradients for the
  // reduce-scatter.
  const std::vector<size_t> release = models::gradient_release(order, shared_.chunks(), shared_.layout.gradients_after_flush);
  // Sharded weights (ZeRO-3, FSDP): every pass gathers its chunk's weights unit by unit just ahead of
  // the compute, and every backward reduce-scatters its gradients unit by unit just behind it.
  const int units = t.fsdp_units;

  // Parameters are all-gathered chunk by chunk before the first forward needs them.
  double dp_free = shared_.origin;
  const std::vector<double> gathered = timed_all_gathers(dp_free);

  Spans busy;  // the stage's compute, which the DP traffic beside it slows
  Spans dp_spans;
  if (shared_.dp == nullptr && units == 0)
    for (double at : gathered)
      dp_spans.emplace_back(at - t.dp_all_gather, at);
  for (size_t i = 0; i < order.size(); ++i) {
    const PipelineOp& op = order[i];
    double ready = std::max(shared_.origin, wait_for_input(op));
    models::StreamSpan unit_gather;
    if (units > 0) {
      unit_gather = sharded_gather(op, ready, dp_free);
      dp_spans.emplace_back(unit_gather.start, unit_gather.end);
      ready = std::max(ready, models::first_bucket_arrival(unit_gather.end, t.dp_all_gather, units));
    } else if (op.kind == PassKind::Forward) {
      ready = std::max(ready, parameters_ready(gathered, op.chunk));
    }
    if (sg4::Engine::get_clock() < ready)
      sg4::this_actor::sleep_until(ready);
    const double start = sg4::Engine::get_clock();
    if (shared_.dp != nullptr && t.dp_buckets > 0 && op.kind == PassKind::Backward)
      for (int chunk = shared_.chunks() - 1; chunk >= 0; --chunk)
        if (release[static_cast<size_t>(chunk)] == i)
          shared_.dp->release(stage_, chunk);  // its buckets stream during this last backward
    sg4::this_actor::execute(models::pass_work(
        {t.forward_flops, t.backward_flops, t.logits_forward_flops, t.logits_backward_flops}, shared_.layout, stage_, op));
    const bool backward = op.kind == PassKind::Backward;
    // The TP traffic hidden behind the pass's GEMMs slows them (network.overlap_slowdown).
    if (t.tp_slowed_per_pass > 0 && shared_.layout.chunk_holds_layers(stage_, op.chunk))
      sg4::this_actor::sleep_for(t.tp_slowed_per_pass * (backward ? t.tp_backward_collectives : 1.0));
    const double computed = sg4::Engine::get_clock();
    busy.emplace_back(start, computed);
    // Bucketed all-gather: the pass's last bucket of layers waits for the last bucket of parameters.
    if (units > 0) {
      const double last = models::last_bucket_done(unit_gather.end, computed - start, units);
      if (sg4::Engine::get_clock() < last)
        sg4::this_actor::sleep_until(last);
    } else if (op.kind == PassKind::Forward && t.dp_buckets > 0 && shared_.dp == nullptr) {
      const double last = models::last_bucket_done(gathered[static_cast<size_t>(op.chunk)], computed - start,
                                                   t.dp_buckets);
      if (sg4::Engine::get_clock() < last)
        sg4::this_actor::sleep_until(last);
    }
    const double end = blocking_collectives(op, computed);
    shared_.compute[s] += computed - start;
    record(0, pass_name(op), start, end);
    publish(op, end);
    if (units > 0 && op.kind == PassKind::Backward) {
      const models::StreamSpan rs = models::reduce_scatter_span(start, end, dp_free, t.dp_reduce_scatter, units);
      dp_free = rs.end;
      dp_spans.emplace_back(rs.start, rs.end);
      record(3, "reduce-scatter " + pass_name(op), rs.start, rs.end);
    } else if (op.kind == PassKind::Backward)
      for (int chunk = shared_.chunks() - 1; chunk >= 0; --chunk)  // the order the chunks' backwards end in
        if (release[static_cast<size_t>(chunk)] == i) {
          const double rs_start = reduce_scatter(chunk, start, end, dp_free);
          if (shared_.dp == nullptr)
            dp_spans.emplace_back(rs_start, dp_free);
        }
  }
  shared_.end[s] = finish(busy, std::move(dp_spans), dp_free);
}

// When the stage is done: its DP traffic finished, the compute that traffic slowed made up for (the
// stage ends that much later), and the optimizer step run once the gradients are reduced.
double PipelineStage::finish(const Spans& busy, Spans dp_spans, double dp_free) const
{
  const auto& t = shared_.times;
  const auto s = static_cast<size_t>(stage_);
  double reduced = std::max(sg4::Engine::get_clock(), finish_data_parallel(dp_free));
  if (shared_.dp != nullptr)
    for (const auto& span : shared_.dp->spans(stage_))
      dp_spans.emplace_back(span.start, span.end);
  if (t.overlap_slowdown > 0) {
    const double slowed = t.overlap_slowdown * models::hidden_seconds(busy, dp_spans);
    shared_.compute[s] += slowed;
    reduced += slowed;
  }
  // The optimizer step is memory-bound: a time, not FLOPs.
  shared_.compute[s] += t.optimizer;
  if (t.optimizer > 0)
    record(0, "optimizer step", reduced, reduced + t.optimizer);
  return reduced + t.optimizer;
}

}  // namespace fleetsim::sim
