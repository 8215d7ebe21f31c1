// The iteration plan: Megatron's pipeline orders, their dependencies, and the traffic patterns.
#include "models/step/iteration_plan.hpp"

#include "workload_fixture.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>

namespace fleetsim::models {
namespace {

TEST(PipelineOrder, EveryStageRunsEachPassOfEachMicroBatchAndChunkOnce)
{
  for (auto [p, m, v] : {std::tuple{4, 8, 1}, std::tuple{4, 3, 1}, std::tuple{4, 8, 2}, std::tuple{16, 16, 4}}) {
    for (int s = 0; s < p; ++s) {
      const auto order = pipeline_order(p, m, v, s);
      ASSERT_EQ(order.size(), static_cast<size_t>(2 * m * v));
      std::set<std::tuple<int, int, int>> seen;
      for (const auto& op : order) {
        EXPECT_GE(op.micro_batch, 0);
        EXPECT_LT(op.micro_batch, m);
        EXPECT_GE(op.chunk, 0);
        EXPECT_LT(op.chunk, v);
        seen.insert({static_cast<int>(op.kind), op.micro_batch, op.chunk});
      }
      EXPECT_EQ(seen.size(), order.size()) << "p=" << p << " m=" << m << " v=" << v << " stage " << s;
    }
  }
}

TEST(PipelineOrder, OneFOneBWarmsUpWithOneForwardPerStageBehind)
{
  // 1F1B, 4 stages, 8 micro-batches: stage 0 runs 3 forwards before its first backward, the last
  // stage alternates from the start.
  const auto first = pipeline_order(4, 8, 1, 0);
  for (int k = 0; k < 4; ++k)
    EXPECT_EQ(first[static_cast<size_t>(k)], (PipelineOp{PassKind::Forward, k, 0}));
  EXPECT_EQ(first[4], (PipelineOp{PassKind::Backward, 0, 0}));
  const auto last = pipeline_order(4, 8, 1, 3);
  EXPECT_EQ(last[0], (PipelineOp{PassKind::Forward, 0, 0}));
  EXPECT_EQ(last[1], (PipelineOp{PassKind::Backward, 0, 0}));
}

TEST(PipelineOrder, InterleavedForwardsWalkChunksInGroupsOfPMicroBatches)
{
  // p = 2, v = 2: forwards go mb 0,1 on chunk 0, mb 0,1 on chunk 1, then mb 2,3 on chunk 0 ...
  const auto order = pipeline_order(2, 4, 2, 0);
  const std::vector<PipelineOp> expected_start{
      {PassKind::Forward, 0, 0}, {PassKind::Forward, 1, 0}, {PassKind::Forward, 0, 1}, {PassKind::Forward, 1, 1}};
  for (size_t k = 0; k < expected_start.size(); ++k)
    EXPECT_EQ(order[k], expected_start[k]) << k;
  EXPECT_FALSE(schedule_supported(4, 6, 2));  // interleaving needs m a multiple of p
  EXPECT_TRUE(schedule_supported(4, 6, 1));
}

TEST(GradientRelease, EachChunkAfterItsLastBackwardOrEveryChunkAfterTheFlush)
{
  for (int stage : {0, 3}) {
    SCOPED_TRACE("stage " + std::to_string(stage));
    const auto order = pipeline_order(4, 8, 2, stage);
    const auto each = gradient_release(order, 2, false);
    const auto flush = gradient_release(order, 2, true);
    ASSERT_EQ(each.size(), 2U);
    size_t last = 0;
    for (size_t i = 0; i < order.size(); ++i)
      if (order[i].kind == PassKind::Backward)
        last = i;
    for (int c = 0; c < 2; ++c) {
      const auto& op = order[each[static_cast<size_t>(c)]];
      EXPECT_EQ(op.kind, PassKind::Backward);
      EXPECT_EQ(op.chunk, c);
      for (size_t i = each[static_cast<size_t>(c)] + 1; i < order.size(); ++i)  // no later backward of c
        EXPECT_FALSE(order[i].kind == PassKind::Backward && order[i].chunk == c);
      EXPECT_EQ(flush[static_cast<size_t>(c)], last);
    }
    // The interleaved backward walks the chunks down: chunk 1's gradients are complete first.
    EXPECT_LT(each[1], each[0]);
  }
}

TEST(PipelineDependency, ForwardsChainThroughVirtualStagesAndBackwardsReturn)
{
  const PipelineOp f{PassKind::Forward, 3, 1};
  EXPECT_EQ(pipeline_dependency(4, 2, 2, f).stage, 1);
  const auto wrap = pipeline_dependency(4, 2, 0, f);  // chunk 1 on stage 0 follows chunk 0 on stage 3
  EXPECT_EQ(wrap.stage, 3);
  EXPECT_EQ(wrap.op, (PipelineOp{PassKind::Forward, 3, 0}));
  EXPECT_FALSE(pipeline_dependency(4, 2, 0, {PassKind::Forward, 3, 0}).has_producer);
  const auto turn = pipeline_dependency(4, 2, 3, {PassKind::Backward, 3, 1});  // last virtual stage
  EXPECT_EQ(turn.stage, 3);
  EXPECT_EQ(turn.op, (PipelineOp{PassKind::Forward, 3, 1}));
  const auto back = pipeline_dependency(4, 2, 3, {PassKind::Backward, 3, 0});
  EXPECT_EQ(back.stage, 0);
  EXPECT_EQ(back.op, (PipelineOp{PassKind::Backward, 3, 1}));
}

TEST(ReplaySchedule, BubbleIsPMinus1OverVMOfTheComputeWithoutTransfers)
{
  // With free transfers a stage computes m v (f + b) and idles (p - 1)(f + b): the textbook bubble
  // (p - 1) / (v m), for 1F1B and for the interleaved schedule alike.
  for (auto [p, m, v] :
       {std::tuple{4, 8, 1}, std::tuple{8, 3, 1}, std::tuple{4, 8, 2}, std::tuple{8, 16, 2}, std::tuple{16, 16, 4}}) {
    const double f = 1.0 / v;
    const double b = 2.0 / v;
    const auto r = replay_schedule(p, m, v, f, b, 0.0);
    ASSERT_FALSE(r.deadlock) << p << " " << m << " " << v;
    const double compute = m * v * (f + b);
    EXPECT_NEAR(r.makespan, compute * (1.0 + (p - 1.0) / (v * m)), 1e-9) << p << " " << m << " " << v;
  }
}

TEST(ReplaySchedule, TransfersLengthenTheCriticalPathOnlyWhereItCrossesStages)
{
  // 1F1B: the first forward crosses p - 1 boundaries going down and the last backward p - 1 coming
  // back, so a transfer time t adds at least 2 (p - 1) t.
  const auto base = replay_schedule(4, 8, 1, 1.0, 2.0, 0.0);
  const auto slow = replay_schedule(4, 8, 1, 1.0, 2.0, 0.1);
  EXPECT_GE(slow.makespan - base.makespan, 2 * 3 * 0.1 - 1e-9);
  const auto one_stage = replay_schedule(1, 8, 1, 1.0, 2.0, 5.0);
  EXPECT_DOUBLE_EQ(one_stage.makespan, 24.0);
}

StepInputs llama3_like()
{
  StepInputs in;
  in.workload = testing::dense_workload(405e9, 126, 16384, 8192, 16777216);
  in.accelerator.peak_flops = units::FlopsPerSecond(989e12);
  in.layout = {8, 16, 128, 4};
  return in;
}

TEST(IterationPlan, PlacesTensorGroupsOnConsecutiveRanksAndDataParallelOutermost)
{
  const ParallelLayout l{8, 16, 128, 4};
  EXPECT_EQ(layout_rank(l, 3, 0, 0), 3);
  EXPECT_EQ(layout_rank(l, 0, 1, 0), 8);
  EXPECT_EQ(layout_rank(l, 0, 0, 1), 128);
  EXPECT_EQ(layout_rank(l, 7, 15, 127), 16383);
}

TEST(IterationPlan, SplitsTheStepsFlopsOverPassesAndSizesEveryPattern)
{
  const auto plan = make_iteration_plan(llama3_like());
  EXPECT_EQ(plan.micro_batches, 16);
  // Per GPU per step: (6P + 12 L h s) x 2^24 tokens / 16,384 GPUs, in m v = 64 passes of 1 + 2 units.
  const double per_gpu = training_flops_per_token(llama3_like().workload) * 16777216.0 / 16384;
  EXPECT_NEAR(64 * (plan.forward_flops + plan.backward_flops), per_gpu, 1e-6 * per_gpu);
  EXPECT_DOUBLE_EQ(plan.backward_flops, 2 * plan.forward_flops);
  EXPECT_NEAR(plan.tp_allreduces_per_pass, 2 * 126.0 / 64, 1e-12);
  EXPECT_DOUBLE_EQ(plan.activation_bytes, 8192.0 * 16384 * 2);
  EXPECT_DOUBLE_EQ(plan.pp_message_bytes, 8192.0 * 16384 * 2 / 8);
  EXPECT_DOUBLE_EQ(plan.dp_chunk_bytes, 405e9 / (8 * 16 * 4) * 2);
  // Every GPU takes part in each pattern; interleaving makes the last stage send to the first.
  EXPECT_EQ(plan.tp_ring_step.flows.size(), 16384u);
  EXPECT_EQ(plan.pp_send.flows.size(), 16384u);
  EXPECT_EQ(plan.dp_ring_step.flows.size(), 16384u);
  EXPECT_EQ(plan.dp_ring_step.flows[0].dst, 128);
  EXPECT_DOUBLE_EQ(plan.tp_allreduce_time(1.0), 14.0);
  EXPECT_DOUBLE_EQ(plan.dp_reduce_scatter_time(1.0), 127.0);
  EXPECT_EQ(iteration_traffic(plan).steps.size(), 3u);
}

TEST(IterationPlan, ContextParallelRanksSitBetweenTensorAndPipelineAndShareGradients)
{
  // [TP, CP, PP, DP]: rank = tp + 8 (cp + 16 (pp + 16 dp)).
  const ParallelLayout l{8, 16, 8, 4, 16};
  EXPECT_EQ(layout_rank(l, 0, 0, 0, 1), 8);
  EXPECT_EQ(layout_rank(l, 0, 1, 0, 0), 128);
  EXPECT_EQ(layout_rank(l, 0, 0, 1, 0), 2048);
  auto in = llama3_like();
  in.workload.sequence_length = 131072;
  in.workload.attention_heads = 128;
  in.workload.kv_heads = 8;
  in.layout = l;
  const auto plan = make_iteration_plan(in);
  EXPECT_EQ(plan.micro_batches, 16);
  EXPECT_EQ(plan.dp_group, 128);
  EXPECT_DOUBLE_EQ(plan.cp_message_bytes, 2.0 * 8192 * 1024 / 8 * 2);
  EXPECT_NEAR(plan.cp_gathers_per_pass, 126.0 / 64, 1e-12);
  ASSERT_EQ(plan.cp_ring_step.flows.size(), 16384u);
  EXPECT_EQ(plan.cp_ring_step.flows[0].dst, 8);  // next context rank, same tensor index
  // The gradient ring visits a replica's 16 context ranks, then moves to the next replica.
  ASSERT_EQ(plan.dp_ring_step.flows.size(), 16384u);
  EXPECT_EQ(plan.dp_ring_step.flows[15 * 8].src, 120);   // cp 15 of replica 0 ...
  EXPECT_EQ(plan.dp_ring_step.flows[15 * 8].dst, 2048);  // ... sends to cp 0 of replica 1
  EXPECT_DOUBLE_EQ(plan.dp_reduce_scatter_time(1.0), 127.0);
  EXPECT_DOUBLE_EQ(plan.cp_all_gather_time(1.0), 15.0);
  EXPECT_EQ(iteration_traffic(plan).steps.size(), 4u);
}

TEST(IterationPlan, ExpertAllToAllReachesTheOtherRanksOfEachExpertGroup)
{
  auto in = llama3_like();
  in.workload.experts = 8;
  in.workload.expert_parameters = 300e9;
  in.layout.ep = 4;
  const auto plan = make_iteration_plan(in);
  EXPECT_NEAR(plan.ep_alltoalls_per_pass, 2 * 126.0 / 64, 1e-12);
  ASSERT_EQ(plan.ep_alltoall.flows.size(), 16384u * 3);
  // Rank 0 (replica 0) exchanges with replicas 1, 2, 3: ranks 128, 256, 384; replica 4 starts a new group.
  std::set<int> peers;
  for (const auto& f : plan.ep_alltoall.flows)
    if (f.src == 0)
      peers.insert(f.dst);
  EXPECT_EQ(peers, (std::set<int>{128, 256, 384}));
  EXPECT_DOUBLE_EQ(plan.ep_alltoall.flows[0].bytes, ep_alltoall_bytes(in) / 3);
  EXPECT_EQ(iteration_traffic(plan).steps.size(), 4u);
}

TEST(DecomposePlayedIteration, AddsUpAndNeverOverlapsNegatively)
{
  const auto plan = make_iteration_plan(llama3_like());  // 16 micro-batches x 4 chunks: 128 passes
  PlayedIteration p;
  p.compute = 4.0;
  p.blocking_per_pass[0] = 0.004;  // TP: 0.512 s over 128 passes
  p.own_pp = 0.05;                 // the stage's own sends ...
  p.own_dp = 0.25;
  p.makespan_free_net = 5.6;  // compute + TP + a 1.088 s bubble
  p.makespan_free_dp = 5.68;  // ... but the critical path pays 0.08 s of PP
  p.makespan = 5.74;          // and 0.06 s of DP
  p.barrier = 0.001;
  const StepBreakdown b = decompose_played_iteration(plan, p, units::FlopsPerSecond(989e12));
  EXPECT_NEAR(b.tp_comm.si(), 0.512, 1e-12);
  EXPECT_NEAR(b.pp_comm.si(), 0.08, 1e-12);  // the exposed time exceeds the own sends: it counts
  EXPECT_NEAR(b.dp_comm.si(), 0.25, 1e-12);
  EXPECT_NEAR(b.comm_exposed.si(), 0.512 + 0.08 + 0.06, 1e-12);
  EXPECT_NEAR(b.overlap.si(), 0.19, 1e-12);  // DP only: 0.25 - 0.06
  EXPECT_NEAR(b.bubble.si(), 5.6 - 4.0 - 0.512, 1e-12);
  EXPECT_NEAR(b.step_time.si(), 5.741, 1e-12);
  EXPECT_NEAR((b.compute + b.comm + b.sync - b.overlap).si(), b.step_time.si(), 1e-12);
  EXPECT_NEAR(b.mfu, plan.flops_per_token * plan.tokens_per_step / (16384 * 989e12 * 5.741), 1e-12);
  EXPECT_EQ(b.binding_term, "compute");
  EXPECT_EQ(b.model, "simulated");
}

TEST(IterationPlan, OneFOneBPipelinesDoNotSendFromTheLastStage)
{
  auto in = llama3_like();
  in.layout = {1, 4, 2, 1};
  in.workload.global_batch_tokens = 8192.0 * 8;
  const auto plan = make_iteration_plan(in);
  EXPECT_EQ(plan.micro_batches, 4);
  EXPECT_TRUE(plan.tp_ring_step.flows.empty());
  EXPECT_EQ(plan.pp_send.flows.size(), 2u * 3);
  EXPECT_EQ(iteration_traffic(plan).steps.size(), 2u);
}

}  // namespace
}  // namespace fleetsim::models
