#pragma once
// One training iteration simulated on the scenario's fabric ("step_model: simulated").
//
// Two phases in one Engine (plus, when the scenario has a storage service and checkpoint state,
// a timed checkpoint write and the patterns again while a checkpoint drains):
//  1. Traffic: every distinct pattern of the iteration runs once on the whole fabric with all its
//     concurrent flows -- a tensor-parallel ring step on every node's NVLink, every stage's
//     activation send, a data-parallel ring step of every DP group -- so that oversubscribed
//     uplinks and shared NICs slow them as they would. Ring collectives repeat their step, so a
//     TP all-reduce is 2(tp-1) steps and a DP reduce-scatter (or all-gather) dp-1 steps.
//  2. Schedule: one pipeline plays Megatron's 1F1B / interleaved order with stage actors (passes
//     as Execs on the GPUs, inputs arriving a transfer after they were produced, each chunk's DP
//     all-gather and reduce-scatter on a per-stage stream). It is played three times -- as is,
//     with free DP traffic, and with free DP and PP traffic -- and the differences give the
//     exposed share of each. When the stages' DP collectives can slow each other (some stage's DP
//     ring step alone is faster than with every stage's at once), the as-is play is replaced by
//     one whose DP collectives are real flows of every replica's copy of the stage, issued when the
//     played stage issues them (simulator/actors/data_parallel_rank.hpp): the last stage ends its
//     backward passes first, so its reduce-scatters have the uplinks to themselves for a while.
//     The play while a checkpoint drains moves by as much; the PP transfers keep their phase-1 time.
//
// Fleet-law decomposition: T_step = compute + comm + sync - overlap, with comm = tp + pp + dp,
// exposed comm = tp + cp + ep + pp_exposed + dp_exposed, sync = bubble + barrier, overlap = comm - exposed.

#include "models/step/step_model.hpp"
#include "simulator/actors/pipeline_stage.hpp"
#include "simulator/platform/fabric_builder.hpp"
#include "simulator/scenario/scenario.hpp"

#include <string>
#include <vector>

namespace fleetsim::sim {

/// The step-level fabric the scenario describes, for `ranks` GPUs.
[[nodiscard]] FabricSpec fabric_spec(const scenario::Scenario& s, int ranks);

/// One line describing a fabric for terminal output ("6 pods of 3072 GPUs at 1:7, ...").
[[nodiscard]] std::string describe_fabric(const FabricSpec& spec, const Fabric& built);

struct SimulatedStep {
  models::StepBreakdown breakdown;  // breakdown.model == "simulated"
  // Fabric-timed building blocks.
  double tp_allreduce_s = 0;                 // one TP all-reduce of a micro-batch's activations
  double cp_all_gather_s = 0;                // one CP all-gather of a layer's keys and values
  double ep_alltoall_s = 0;                  // one expert all-to-all of a micro-batch's tokens
  double pp_transfer_s = 0;                  // one stage-to-stage send, all pipelines sending at once
  double dp_reduce_scatter_chunk_s = 0;      // one chunk's reduce-scatter (= all-gather), every stage at once
  double checkpoint_write_s = 0;             // every GPU writes its state to storage at once, over the fabric
  double step_time_during_checkpoint_s = 0;  // the iteration while a checkpoint drains to storage
  PipelineTimes contended;                   // pass and transfer times with checkpoint traffic on the fabric
  double pp_exposed_s = 0;
  double dp_exposed_s = 0;
  bool dp_streamed = false;  // the stages contend for DP bandwidth: the as-is play streamed its DP flows
  // One slow node (stragglers or heterogeneous configured): pipeline 0 played again with one
  // middle stage's GPU at `slow_speed` through a SimGrid speed profile.
  double slow_speed = 1;
  int slow_stage = -1;
  double step_time_with_slow_node_s = 0;
  int critical_stage = 0;
  int pods = 1;
  int racks = 0;
  std::string fabric;             // describe_fabric()
  std::vector<TraceSlice> trace;  // the iteration as played, for the Chrome trace
  int stages = 1;
  double wall_time_s = 0;
};

/// Runs the iteration. Owns the process's Engine: call once per process, with a scenario whose
/// step inputs passed the loader's checks.
[[nodiscard]] SimulatedStep simulate_step(const scenario::Scenario& s, bool slow_node_play = true);

/// The speed of the one slow node the step simulation plays: the persistent stragglers', else the
/// slowdown episodes', else the older generation's; 1 when the scenario has none.
[[nodiscard]] double slow_node_speed(const scenario::Scenario& s);

}  // namespace fleetsim::sim
