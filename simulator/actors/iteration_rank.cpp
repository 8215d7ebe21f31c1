#include "iteration_rank.hpp"

#include "simulator/actors/pipeline_stage.hpp"

#include <string>

namespace fleetsim::sim {

using models::PassKind;
using models::PipelineOp;

namespace {

int payload = 0;  // flows carry bytes, not data

struct Coordinates {
  int t, s, d;
};

Coordinates coordinates(const models::ParallelLayout& l, int rank)
{
  return {rank % l.tp, (rank / l.tp) % l.pp, rank / (l.tp * l.pp)};
}

// The mailbox of one pass's output on its way to `consumer`: named by the producing stage and pass.
sg4::Mailbox* pass_box(int consumer, int producer_stage, const PipelineOp& op)
{
  return sg4::Mailbox::by_name("pp" + std::to_string(consumer) + ":" + std::to_string(producer_stage) +
                               (op.kind == PassKind::Forward ? "F" : "B") + std::to_string(op.micro_batch) + "." +
                               std::to_string(op.chunk));
}

// One step of a ring: send to the next member, receive from the previous one, wait for both.
sg4::CommPtr ring_step(sg4::Mailbox* next, sg4::Mailbox* own, double bytes)
{
  int* received = nullptr;
  sg4::CommPtr out = next->put_async(&payload, static_cast<uint64_t>(bytes));
  sg4::CommPtr in = own->get_async<int>(&received);
  out->wait();
  in->wait();
  return out;
}

}  // namespace

void IterationRank::tensor_parallel_ring(PassKind kind) const
{
  const auto& l = shared_.layout;
  const auto& f = shared_.flows;
  if (f.tp_ring_steps == 0)
    return;
  const bool backward = kind == PassKind::Backward;
  const double bytes = backward ? f.tp_backward_step_bytes : f.tp_step_bytes;
  const double extra_latency = backward ? f.tp_backward_extra_latency : f.tp_extra_latency;
  const int next = rank_ / l.tp * l.tp + (rank_ % l.tp + 1) % l.tp;
  for (int k = 0; k < f.tp_ring_steps; ++k)
    ring_step(shared_.tp_box[static_cast<size_t>(next)], shared_.tp_box[static_cast<size_t>(rank_)], bytes);
  shared_.comms += f.tp_ring_steps;
  if (extra_latency > 0)
    sg4::this_actor::sleep_for(extra_latency);
}

void IterationRank::operator()() const
{
  const auto& l = shared_.layout;
  const auto& f = shared_.flows;
  const Coordinates c = coordinates(l, rank_);
  const int p = l.pp;
  const int v = l.virtual_stages;
  RankSync& sync = shared_.sync[static_cast<size_t>(rank_)];
  const auto order = models::pipeline_order(p, shared_.micro_batches, v, c.s);
  const std::vector<size_t> release = models::gradient_release(order, v, l.gradients_after_flush);

  // Every input from another stage has its receive posted now: a transfer starts when it is sent.
  std::vector<int*> slots(order.size(), nullptr);
  std::vector<sg4::CommPtr> inputs(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const auto dep = models::pipeline_dependency(p, v, c.s, order[i]);
    if (dep.has_producer && dep.stage != c.s)
      inputs[i] = pass_box(rank_, dep.stage, dep.op)->get_async<int>(&slots[i]);
  }
  struct Send {
    sg4::CommPtr comm;
    int dst;
  };
  std::vector<Send> sends;
  int gathered = f.dp_ring_steps > 0 ? 0 : v;
  for (size_t i = 0; i < order.size(); ++i) {
    const PipelineOp& op = order[i];
    if (inputs[i])
      inputs[i]->wait();
    for (; op.kind == PassKind::Forward && gathered <= op.chunk; ++gathered)
      sync.gathered->acquire();
    sg4::this_actor::execute(models::pass_work(
        {f.forward_flops, f.backward_flops, f.logits_forward_flops, f.logits_backward_flops}, l, c.s, op));
    shared_.execs++;
    if (l.chunk_holds_layers(c.s, op.chunk))
      tensor_parallel_ring(op.kind);
    if (sends_output(p, v, c.s, op)) {
      const int consumer = models::layout_rank(l, c.t, models::pipeline_consumer(p, v, c.s, op), c.d);
      sends.push_back(
          {pass_box(consumer, c.s, op)->put_async(&payload, static_cast<uint64_t>(f.pp_message_bytes)), consumer});
    }
    if (f.dp_ring_steps > 0 && op.kind == PassKind::Backward)
      for (int chunk = v - 1; chunk >= 0; --chunk)  // the order the chunks' backwards end in
        if (release[static_cast<size_t>(chunk)] == i) {
          sync.ready_chunks.push_back(chunk);
          sync.ready->release();
        }
  }
  sync.compute_end = sg4::Engine::get_clock();
  for (auto& send : sends) {
    send.comm->wait();
    shared_.records.push_back(
        {rank_, send.dst, FlowKind::Pipeline, c.d, send.comm->get_start_time(), send.comm->get_finish_time()});
  }
  shared_.comms += static_cast<long>(sends.size());
}

void DataParallelStream::ring(double step_bytes) const
{
  const auto& l = shared_.layout;
  const auto& f = shared_.flows;
  const Coordinates c = coordinates(l, rank_);
  const int next = models::layout_rank(l, c.t, c.s, (c.d + 1) % l.dp);
  for (int k = 0; k < f.dp_ring_steps; ++k) {
    const sg4::CommPtr out = ring_step(shared_.dp_box[static_cast<size_t>(next)],
                                       shared_.dp_box[static_cast<size_t>(rank_)], step_bytes);
    shared_.records.push_back(
        {rank_, next, FlowKind::DataParallel, c.t + l.tp * c.s, out->get_start_time(), out->get_finish_time()});
  }
  shared_.comms += f.dp_ring_steps;
}

void DataParallelStream::operator()() const
{
  RankSync& sync = shared_.sync[static_cast<size_t>(rank_)];
  const int v = shared_.layout.virtual_stages;
  for (int chunk = 0; chunk < v; ++chunk) {
    ring(shared_.flows.dp_step_bytes);  // all-gather chunk's parameters
    sync.gathered->release();
  }
  for (int n = 0; n < v; ++n) {
    sync.ready->acquire();
    sync.ready_chunks.pop_front();
    ring(shared_.flows.dp_reduce_step_bytes);  // reduce-scatter its gradients, in their own precision
  }
  sync.dp_end = sg4::Engine::get_clock();
}

void launch_iteration(IterationShared& shared)
{
  const auto n = shared.hosts.size();
  shared.sync.resize(n);
  for (size_t r = 0; r < n; ++r) {
    shared.tp_box.push_back(sg4::Mailbox::by_name("tp" + std::to_string(r)));
    shared.dp_box.push_back(sg4::Mailbox::by_name("dp" + std::to_string(r)));
  }
  for (size_t r = 0; r < n; ++r) {
    const int rank = static_cast<int>(r);
    sg4::Actor::create("gpu" + std::to_string(r), shared.hosts[r], IterationRank(shared, rank));
    if (shared.flows.dp_ring_steps > 0)
      sg4::Actor::create("dp" + std::to_string(r), shared.hosts[r], DataParallelStream(shared, rank));
  }
}

}  // namespace fleetsim::sim
