// The time that is not GEMMs (issue 32): memory-bound kernels at an achieved fraction of HBM
// bandwidth, compute slowed by the communication it hides, and a fixed cost per pipeline send. Each
// is checked on the analytic step against its definition; the simulated step's are in
// tests/simulator/step_costs_test.cpp.
#include "models/step/layer_cost.hpp"
#include "models/step/step_model.hpp"

#include <gtest/gtest.h>

namespace fleetsim::models {
namespace {

// A 70B-like model on 512 A100s at TP 8 x PP 8 x DP 8, v = 2, with kernel times by shape.
StepInputs pipelined()
{
  StepInputs in;
  Workload& w = in.workload;
  w.parameters = 70e9;
  w.layers = 80;
  w.hidden = 8192;
  w.attention_heads = 64;
  w.kv_heads = 8;
  w.sequence_length = 4096;
  w.global_batch_tokens = 4096.0 * 8 * 16;
  w.vocabulary = 32000;
  in.accelerator.peak_flops = units::FlopsPerSecond(312e12);
  in.accelerator.hbm_bandwidth = units::BytesPerSecond(2e12);
  in.accelerator.gemm_curve.max_efficiency = 0.8;
  in.accelerator.gemm_curve.kernel_overhead = 5e-6;
  in.layout = ParallelLayout{8, 8, 8, 2};
  in.fabric.nvlink_bandwidth = units::BytesPerSecond(230e9);
  in.fabric.nic_bandwidth = units::BytesPerSecond(25e9);
  in.fabric.nic_latency = units::Seconds(5e-6);
  in.fabric.dp_overlap = 0.8;
  in.fabric.tp_overlap = 0.5;
  return in;
}

TEST(StepCosts, MemoryBoundKernelsRunAtTheAchievedShareOfHbmBandwidth)
{
  StepInputs in = pipelined();
  const LayerCost full = layer_cost(in);
  const double full_optimizer = optimizer_seconds(in);
  in.accelerator.hbm_efficiency = 0.5;
  const LayerCost half = layer_cost(in);
  // The element-wise kernels' bytes take twice as long; their fixed costs do not change.
  const double overhead = 6 * 5e-6;  // two norms, two residual adds, the activation, the softmax
  EXPECT_NEAR(half.elementwise_s - overhead, 2 * (full.elementwise_s - overhead), 1e-12);
  EXPECT_NEAR(optimizer_seconds(in) - 4 * 5e-6, 2 * (full_optimizer - 4 * 5e-6), 1e-12);
  EXPECT_GT(half.forward_s, full.forward_s);
  in.accelerator.hbm_efficiency = 0;
  EXPECT_FALSE(check_step_inputs(in, in.layout.gpus()).empty());
}

TEST(StepCosts, HiddenCommunicationSlowsTheComputeBesideIt)
{
  StepInputs in = pipelined();
  const StepBreakdown plain = AnalyticStepModel().step(in);
  ASSERT_GT(plain.overlap.si(), 0);
  in.fabric.overlap_slowdown = 0.25;
  const StepBreakdown slowed = AnalyticStepModel().step(in);
  // Each second of hidden TP and DP traffic costs a quarter second of compute; nothing else moves.
  EXPECT_NEAR(slowed.compute.si() - plain.compute.si(), 0.25 * plain.overlap.si(), 1e-12);
  EXPECT_NEAR(slowed.step_time.si() - plain.step_time.si(), 0.25 * plain.overlap.si(), 1e-12);
  EXPECT_DOUBLE_EQ(slowed.comm.si(), plain.comm.si());
  in.fabric.overlap_slowdown = 1.5;
  EXPECT_FALSE(check_step_inputs(in, in.layout.gpus()).empty());
}

TEST(StepCosts, EveryPipelineSendPaysItsFixedCost)
{
  StepInputs in = pipelined();
  const StepBreakdown plain = AnalyticStepModel().step(in);
  in.fabric.pp_overhead = units::Seconds(40e-6);
  const StepBreakdown paid = AnalyticStepModel().step(in);
  // 2 v m sends per pipeline (a forward's activation and a backward's gradient per chunk pass).
  const double sends = 2.0 * in.layout.virtual_stages * plain.micro_batches;
  EXPECT_NEAR(paid.pp_comm.si() - plain.pp_comm.si(), sends * 40e-6, 1e-12);
  EXPECT_NEAR(paid.step_time.si() - plain.step_time.si(), sends * 40e-6, 1e-12);
}

}  // namespace
}  // namespace fleetsim::models
