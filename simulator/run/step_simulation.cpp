#include "step_simulation.hpp"

#include <simgrid/kernel/ProfileBuilder.hpp>

#include "models/network/collectives.hpp"
#include "models/step/iteration_plan.hpp"
#include "simulator/actors/collective_rank.hpp"
#include "simulator/actors/data_parallel_rank.hpp"
#include "simulator/run/engine_setup.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

namespace fleetsim::sim {

FabricSpec fabric_spec(const scenario::Scenario& s, int ranks)
{
  FabricSpec f;
  f.ranks = ranks;
  f.nic_bandwidth = s.step.fabric.nic_bandwidth.si();
  f.nic_latency = s.step.fabric.nic_latency.si();
  f.pod_size = static_cast<int>(s.fabric.pod_size);
  f.pod_oversubscription = s.fabric.pod_oversubscription;
  f.gpu_flops = s.step.accelerator.peak_flops.si();
  f.gpus_per_node = s.fleet.gpus_per_node;
  f.nvlink_bandwidth = s.step.fabric.nvlink_bandwidth.si();
  f.nvlink_latency = s.step.fabric.nvlink_latency.si();
  f.rack_size = s.fleet.gpus_per_rack;
  f.rack_oversubscription = s.fabric.rack_oversubscription;
  f.topology = s.fabric.topology;
  f.torus_dims = s.fabric.torus_dims;
  f.torus_link_bandwidth = s.fabric.torus_link_bandwidth;
  f.torus_hop_latency = s.fabric.torus_hop_latency;
  f.storage_write_bandwidth = s.storage.write_bandwidth.si();
  f.storage_read_bandwidth = s.storage.read_bandwidth.si();
  return f;
}

std::string describe_fabric(const FabricSpec& spec, const Fabric& built)
{
  return models::find_topology(spec.topology)->describe(spec, built.layout);
}

namespace {

// Phase 1: time each distinct pattern once, all its flows at once, on the whole fabric.
// With background_bytes > 0, every GPU streams a checkpoint to the storage host meanwhile.
std::vector<double> time_patterns(const models::CollectivePlan& traffic, const Fabric& fabric, sg4::Engine& engine,
                                  double background_bytes = 0)
{
  if (traffic.steps.empty())
    return {};
  CollectiveShared shared;
  launch_collective(shared, traffic, false, fabric.ranks, fabric.storage, background_bytes);
  engine.run();
  return shared.step_seconds;
}

// Whether the stages' DP collectives can slow each other, so that when each stage issues them
// matters: some stage's DP ring step alone is faster than `all_at_once`, the step with every
// stage's flows (phase 1). If none is, no stage's bottleneck is another's (max-min rates only rise
// as flows leave), any overlap of the stages' collectives gives each its phase-1 time, and
// streaming them would reproduce the timed play at the cost of every DP flow.
bool stages_contend_for_dp(const models::IterationPlan& plan, const Fabric& fabric, sg4::Engine& engine,
                           double all_at_once)
{
  const auto& l = plan.layout;
  if (l.pp == 1 || plan.dp_ring_step.flows.empty() || plan.fsdp_units > 0)
    return false;  // ZeRO-3's per-pass gathers are played on each stage's timed stream
  constexpr double kSolverPrecision = 1e-4;  // relative; SimGrid's max-min precision is 1e-5
  for (int stage = 0; stage < l.pp; ++stage) {
    // The stage's flows on its own ranks, renumbered 0..tp*cp*dp-1.
    models::CollectivePlan alone;
    std::vector<int> local(fabric.ranks.size(), -1);
    std::vector<sg4::Host*> hosts;
    for (size_t r = 0; r < fabric.ranks.size(); ++r)
      if ((static_cast<int>(r) / (l.tp * l.cp)) % l.pp == stage) {
        local[r] = static_cast<int>(hosts.size());
        hosts.push_back(fabric.ranks[r]);
      }
    alone.ranks = static_cast<int>(hosts.size());
    models::TrafficStep step{plan.dp_ring_step.label, {}, 1};
    for (const models::Flow& f : plan.dp_ring_step.flows)
      if (local[static_cast<size_t>(f.src)] >= 0)
        step.flows.push_back({local[static_cast<size_t>(f.src)], local[static_cast<size_t>(f.dst)], f.bytes});
    alone.steps.push_back(std::move(step));
    CollectiveShared shared;
    launch_collective(shared, alone, false, hosts);
    engine.run();
    if (shared.step_seconds.front() < all_at_once * (1 - kSolverPrecision))
      return true;
  }
  return false;
}

// The pattern times of one traffic phase turned into pass and transfer times.
PipelineTimes pipeline_times(const models::IterationPlan& plan, const models::CollectivePlan& traffic,
                             const std::vector<double>& step_s, SimulatedStep* record)
{
  auto pattern_time = [&](const models::TrafficStep& pattern) {
    for (size_t i = 0; i < traffic.steps.size(); ++i)
      if (traffic.steps[i].label == pattern.label && !pattern.flows.empty())
        return step_s[i];
    return 0.0;
  };
  const double tp = plan.tp_allreduce_time(pattern_time(plan.tp_ring_step));
  const double cp = plan.cp_all_gather_time(pattern_time(plan.cp_ring_step));  // the all-gather's (reported)
  const double ep = pattern_time(plan.ep_alltoall);
  const double dp = plan.dp_reduce_scatter_time(pattern_time(plan.dp_ring_step));
  PipelineTimes times;
  times.forward_flops = plan.forward_work;
  times.backward_flops = plan.backward_work;
  times.logits_forward_flops = plan.logits_forward_work;
  times.logits_backward_flops = plan.logits_backward_work;
  times.tp_per_pass = plan.tp_allreduces_per_pass * tp * (1.0 - plan.tp_overlap);
  times.tp_slowed_per_pass = plan.tp_allreduces_per_pass * tp * plan.tp_overlap * plan.overlap_slowdown;
  times.overlap_slowdown = plan.overlap_slowdown;
  const models::CpRingExposure cp_exposed = plan.cp_exposed_per_pass(pattern_time(plan.cp_ring_step));
  times.cp_per_pass = cp_exposed.forward_s;
  times.cp_backward_per_pass = cp_exposed.backward_s;
  times.ep_per_pass = plan.ep_alltoalls_per_pass * ep;
  times.backward_collectives = plan.backward_collectives;
  times.tp_backward_collectives = plan.tp_backward_collectives;
  times.optimizer = plan.optimizer_s;
  times.transfer = plan.pp_send.flows.empty() ? 0.0 : pattern_time(plan.pp_send) + plan.pp_overhead;
  times.dp_all_gather = dp;  // the same ring steps, the same bytes
  times.dp_reduce_scatter = dp * plan.dp_reduce_ratio;
  times.dp_buckets = plan.dp_buckets;
  times.fsdp_units = plan.fsdp_units;
  if (record != nullptr) {
    record->tp_allreduce_s = tp;
    record->cp_all_gather_s = cp;
    record->ep_alltoall_s = ep;
    record->pp_transfer_s = times.transfer;
    record->dp_reduce_scatter_chunk_s = dp;
  }
  return times;
}

struct Play {
  double makespan = 0;
  int critical_stage = 0;
  PipelineShared shared;
};

// Phase 2: one pipeline's schedule with the given times, starting now. With `dp`, its stages'
// DP collectives are streamed as real flows of every replica's stage (times.dp_* unused).
void play(sg4::Engine& engine, const models::IterationPlan& plan, const PipelineTimes& times,
          const std::vector<sg4::Host*>& hosts, bool record, Play& out, const DataParallelFlows* dp = nullptr)
{
  PipelineShared& sh = out.shared;
  sh.layout = plan.layout;
  sh.micro_batches = plan.micro_batches;
  sh.times = times;
  sh.hosts = hosts;
  sh.record = record;
  sh.origin = sg4::Engine::get_clock();
  const auto p = static_cast<size_t>(sh.stages());
  sh.end.assign(p, 0.0);
  sh.compute.assign(p, 0.0);
  sh.remote_sends.assign(p, 0);
  sh.dp_busy.assign(p, 0.0);
  std::optional<DataParallelStreams> streams;
  if (dp != nullptr && dp->collectives > 0) {
    streams.emplace(*dp, sh.chunks());
    sh.dp = &*streams;
    streams->launch();
  }
  for (int s = 0; s < sh.stages(); ++s)
    sg4::Actor::create("stage" + std::to_string(s), hosts[static_cast<size_t>(s)], PipelineStage(sh, s));
  engine.run();
  const auto last = std::max_element(sh.end.begin(), sh.end.end());
  out.critical_stage = static_cast<int>(last - sh.end.begin());
  // Stages with equal work: the one that finishes last (stage 0 under 1F1B). When one stage computes
  // more (the last, with the logit GEMM), it is the bottleneck that paces the others.
  const auto busiest = std::max_element(sh.compute.begin(), sh.compute.end());
  if (*busiest > sh.compute[static_cast<size_t>(out.critical_stage)] * (1 + 1e-9))
    out.critical_stage = static_cast<int>(busiest - sh.compute.begin());
  out.makespan = *last - sh.origin;
  sh.dp = nullptr;
}

}  // namespace

double slow_node_speed(const scenario::Scenario& s)
{
  const auto& st = s.stragglers;
  if (st.persistent_fraction > 0 && st.persistent_speed < 1)
    return st.persistent_speed;
  if (st.episode_interval > 0 && st.episode_speed < 1)
    return st.episode_speed;
  if (s.heterogeneous.any())
    return s.heterogeneous.speed;
  return 1;
}

namespace {

// Last (a speed profile cannot be taken back): the slowest node the scenario has, in the middle
// stage of pipeline 0. Every step waits for the slowest pipeline, so this is the step with one slow
// node anywhere in the job.
void play_with_slow_node(sg4::Engine& engine, const models::IterationPlan& plan, const PipelineTimes& times,
                         const std::vector<sg4::Host*>& hosts, double slow, const models::StepInputs& in,
                         SimulatedStep& r)
{
  r.slow_speed = slow;
  r.slow_stage = in.layout.pp / 2;
  char values[64];
  // Profile dates are absolute simulated times: the change applies from now on.
  std::snprintf(values, sizeof values, "%.17g %.17g\n", sg4::Engine::get_clock(), slow);
  hosts[static_cast<size_t>(r.slow_stage)]->set_speed_profile(
      simgrid::kernel::profile::ProfileBuilder::from_string("slow-node", values, -1));
  Play slowed;
  play(engine, plan, times, hosts, false, slowed);
  const int ranks = static_cast<int>(in.layout.gpus());
  r.step_time_with_slow_node_s = slowed.makespan + models::barrier_time(ranks, in.fabric.nic_latency).si();
}

// The fleet-law decomposition of the iteration as played, and with free DP and free network traffic.
models::StepBreakdown decompose(const models::IterationPlan& plan, const PipelineTimes& times, const Play& as_is,
                                const Play& free_dp, const Play& free_net, const models::StepInputs& in,
                                double tp_allreduce_s)
{
  const auto crit = static_cast<size_t>(as_is.critical_stage);
  models::PlayedIteration played;
  played.compute = as_is.shared.compute[crit];
  played.blocking_per_pass[0] = times.tp_per_pass;
  played.tp_hidden_per_pass = plan.tp_allreduces_per_pass * tp_allreduce_s * plan.tp_overlap;
  played.blocking_per_pass[1] = times.cp_per_pass;
  played.cp_backward_per_pass = times.cp_backward_per_pass;
  played.blocking_per_pass[2] = times.ep_per_pass;
  played.own_pp = as_is.shared.remote_sends[crit] * times.transfer;
  played.own_dp = as_is.shared.dp_busy[crit];
  played.makespan = as_is.makespan;
  played.makespan_free_dp = free_dp.makespan;
  played.makespan_free_net = free_net.makespan;
  played.barrier = models::barrier_time(static_cast<int>(in.layout.gpus()), in.fabric.nic_latency).si();
  return models::decompose_played_iteration(plan, played, in.accelerator.peak_flops);
}

// Phase 1a's patterns and a checkpoint write: every GPU sends `state` bytes to storage at once.
models::CollectivePlan with_checkpoint_write(const models::CollectivePlan& traffic, int ranks, double state)
{
  models::CollectivePlan plan = traffic;
  models::TrafficStep write{"checkpoint write", {}, 1};
  for (int g = 0; g < ranks; ++g)
    write.flows.push_back({g, ranks, state});
  plan.steps.push_back(std::move(write));
  return plan;
}

// After the timed plays (whose results do not depend on what follows them), when the stages' DP
// collectives can slow each other: the iteration again with them streamed as every replica's
// flows, issued when the played stages issue them. It replaces the timed play; the step while a
// checkpoint drains and the step with the slow node (its speed profile stays) move by as much or
// are played streamed again. The stage actors run on the GPUs of tensor index 1 (or replica 1),
// whose speed is the nominal one even after the slow node's profile.
void play_streamed(sg4::Engine& engine, const models::IterationPlan& plan, const PipelineTimes& times,
                   const Fabric& fabric, double barrier, Play& as_is, SimulatedStep& r)
{
  const auto& l = plan.layout;
  const DataParallelFlows flows = make_data_parallel_flows(plan, fabric.ranks);
  std::vector<sg4::Host*> pipeline0;
  std::vector<sg4::Host*> nominal;
  for (int st = 0; st < l.pp; ++st) {
    const int rank = models::layout_rank(l, 0, st, 0);
    pipeline0.push_back(fabric.ranks[static_cast<size_t>(rank)]);
    nominal.push_back(fabric.ranks[static_cast<size_t>(l.tp * l.cp > 1 ? rank + 1 : models::layout_rank(l, 0, st, 1))]);
  }
  Play streamed;
  play(engine, plan, times, nominal, true, streamed, &flows);
  if (r.step_time_during_checkpoint_s > 0)
    r.step_time_during_checkpoint_s += streamed.makespan - as_is.makespan;
  if (r.slow_stage >= 0) {
    Play slowed;  // pipeline 0's slow GPU keeps its profile
    play(engine, plan, times, pipeline0, false, slowed, &flows);
    r.step_time_with_slow_node_s = slowed.makespan + barrier;
  }
  as_is = std::move(streamed);
}

}  // namespace

SimulatedStep simulate_step(const scenario::Scenario& s, bool slow_node_play)
{
  const auto wall0 = std::chrono::steady_clock::now();
  const models::StepInputs& in = s.step;
  const models::IterationPlan plan = models::make_iteration_plan(in);
  const int ranks = static_cast<int>(in.layout.gpus());

  auto engine = make_engine();
  const FabricSpec spec = fabric_spec(s, ranks);
  const Fabric fabric = build_fabric(spec);

  // Phase 1a: the iteration's patterns, and a checkpoint write (every GPU to storage at once).
  const models::CollectivePlan traffic = models::iteration_traffic(plan);
  const double state = s.checkpoint.state_per_gpu.si();
  const bool checkpoint = fabric.storage != nullptr && state > 0;
  const std::vector<double> step_s = time_patterns(checkpoint ? with_checkpoint_write(traffic, ranks, state) : traffic,
                                                   fabric, *engine);

  SimulatedStep r;
  r.pods = fabric.pods;
  r.racks = fabric.racks;
  r.fabric = describe_fabric(spec, fabric);
  r.stages = in.layout.pp;
  const PipelineTimes times = pipeline_times(plan, traffic, step_s, &r);
  if (checkpoint) {
    r.checkpoint_write_s = step_s.back();
    // Phase 1b: the same patterns while every GPU streams a checkpoint to storage (an asynchronous
    // checkpoint draining): what training traffic loses to checkpoint traffic on shared links.
    constexpr double kEndless = 1e18;
    r.contended = pipeline_times(plan, traffic, time_patterns(traffic, fabric, *engine, kEndless), nullptr);
  }

  // Pipeline 0 (data-parallel replica 0, tensor index 0) stands for all of them.
  std::vector<sg4::Host*> hosts;
  for (int st = 0; st < in.layout.pp; ++st)
    hosts.push_back(fabric.ranks[static_cast<size_t>(models::layout_rank(in.layout, 0, st, 0))]);

  const double barrier = models::barrier_time(ranks, in.fabric.nic_latency).si();
  Play as_is;
  play(*engine, plan, times, hosts, true, as_is);
  PipelineTimes no_dp = times;
  no_dp.dp_all_gather = no_dp.dp_reduce_scatter = 0;
  Play free_dp;
  play(*engine, plan, no_dp, hosts, false, free_dp);
  PipelineTimes no_net = no_dp;
  no_net.transfer = 0;
  Play free_net;
  play(*engine, plan, no_net, hosts, false, free_net);
  if (checkpoint) {
    Play during;
    play(*engine, plan, r.contended, hosts, false, during);
    r.step_time_during_checkpoint_s = during.makespan + barrier;
  }
  if (const double slow = slow_node_play ? slow_node_speed(s) : 1.0; slow < 1)
    play_with_slow_node(*engine, plan, times, hosts, slow, in, r);

  const double dp_step = plan.dp_group > 1 ? r.dp_reduce_scatter_chunk_s / (plan.dp_group - 1) : 0.0;
  r.dp_streamed = stages_contend_for_dp(plan, fabric, *engine, dp_step);
  if (r.dp_streamed)
    play_streamed(*engine, plan, times, fabric, barrier, as_is, r);

  r.breakdown = decompose(plan, times, as_is, free_dp, free_net, in, r.tp_allreduce_s);
  r.dp_exposed_s = as_is.makespan - free_dp.makespan;
  r.pp_exposed_s = free_dp.makespan - free_net.makespan;
  r.critical_stage = as_is.critical_stage;
  r.trace = std::move(as_is.shared.slices);
  r.wall_time_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return r;
}

}  // namespace fleetsim::sim
