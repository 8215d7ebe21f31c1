// Measured kernel tables (models/step/kernel_tables.hpp): reading the CSVs, Shepard interpolation
// of GEMM efficiency by shape and pass, attention throughput by sequence length and head dimension,
// and what a table does to a layer's forward and backward time.
#include "models/step/kernel_tables.hpp"
#include "models/step/layer_cost.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

namespace fleetsim::models {
namespace {

const char* kGemmCsv =
    "# a comment line\n"
    "m,k,n,forward,input_gradient,weight_gradient,source\n"
    "4096,4096,4096,0.72,0.70,0.60,test\n"
    "# another comment\n"
    "4096,4096,1024,0.60,0.45,0.40,test\n"
    "4096,1024,4096,0.62,,,test\n";

GemmTable gemm_table()
{
  GemmTableLoad load = parse_gemm_table(kGemmCsv, "g.csv");
  EXPECT_TRUE(load.errors.empty()) << (load.errors.empty() ? "" : load.errors.front());
  return load.table;
}

TEST(KernelTables, AGemmTableReadsEveryRowAndLeavesUnmeasuredPassesAtZero)
{
  const GemmTable t = gemm_table();
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[1].line, 5);  // comments keep the line numbers
  EXPECT_DOUBLE_EQ(t.rows[2].efficiency[0], 0.62);
  EXPECT_EQ(t.rows[2].efficiency[1], 0.0);
}

TEST(KernelTables, BadGemmRowsAreErrorsAtTheirLine)
{
  const GemmTableLoad bad = parse_gemm_table(
      "m,k,n,forward,input_gradient,weight_gradient,source\n4096,0,4096,0.7,0.7,0.7,x\n4096,4096,4096,1.3,0.7,0.7,x\n"
      "4096,4096,4096,0.7,0.7,0.7,\n",
      "g.csv");
  ASSERT_EQ(bad.errors.size(), 3u);
  EXPECT_NE(bad.errors[0].find("g.csv:2: error: k must be a number of at least 1"), std::string::npos);
  EXPECT_NE(bad.errors[1].find("g.csv:3: error: forward must be an efficiency in (0, 1]"), std::string::npos);
  EXPECT_NE(bad.errors[2].find("g.csv:4: error: source must name"), std::string::npos);
  EXPECT_TRUE(bad.table.rows.empty());
  const GemmTableLoad header = parse_gemm_table("m,k,n,fwd\n", "g.csv");
  ASSERT_EQ(header.errors.size(), 1u);
  EXPECT_NE(header.errors[0].find("g.csv:1: error: the header row must be m,k,n,forward"), std::string::npos);
  EXPECT_FALSE(parse_gemm_table("# only a comment\n", "g.csv").errors.empty());
}

TEST(KernelTables, GemmEfficiencyIsExactAtAMeasuredShapeAndBoundedBetween)
{
  GemmTable t = gemm_table();
  EXPECT_DOUBLE_EQ(t.efficiency(GemmPass::Forward, 4096, 4096, 4096), 0.72);
  EXPECT_DOUBLE_EQ(t.efficiency(GemmPass::WeightGradient, 4096, 4096, 1024), 0.40);
  // Between the square and the narrow shape: between their efficiencies, nearer the nearer one.
  const double mid = t.efficiency(GemmPass::InputGradient, 4096, 4096, 2048);
  EXPECT_GT(mid, 0.45);
  EXPECT_LT(mid, 0.70);
  const double near_square = t.efficiency(GemmPass::InputGradient, 4096, 4096, 3600);
  EXPECT_GT(near_square, 0.69);
  // A pass measured on one shape only takes that shape's value everywhere.
  GemmTable one;
  one.rows = {t.rows[2]};
  EXPECT_DOUBLE_EQ(one.efficiency(GemmPass::Forward, 100, 100, 100), 0.62);
  EXPECT_EQ(one.efficiency(GemmPass::InputGradient, 100, 100, 100), 0.0);
  t.scale = 1.1;
  EXPECT_DOUBLE_EQ(t.efficiency(GemmPass::Forward, 4096, 4096, 4096), 0.72 * 1.1);
}

const char* kAttentionCsv =
    "kernel,pass,causal,head_dim,seq,tflops,source\n"
    "k2,forward_backward,true,64,1024,100,t\n"
    "k2,forward_backward,true,64,4096,200,t\n"
    "k2,forward_backward,true,128,1024,150,t\n"
    "k2,forward_backward,true,128,4096,250,t\n"
    "k2,forward,true,128,1024,200,t\n"
    "k3,forward,true,128,1024,300,t\n"
    "k3,backward,true,128,1024,240,t\n"
    "k4,forward,false,128,1024,300,t\n";

TEST(KernelTables, AttentionIsLinearInLog2OfLengthAndHeadDimensionAndClampedBeyond)
{
  const AttentionTableLoad load = parse_attention_table(kAttentionCsv, "a.csv");
  ASSERT_TRUE(load.errors.empty()) << load.errors.front();
  const AttentionTable& t = load.table;
  EXPECT_EQ(t.kernels(), (std::vector<std::string>{"k2", "k3", "k4"}));
  // d 64 alone: forward_backward gives both passes.
  EXPECT_DOUBLE_EQ(t.rate("k2", true, 64, 2048).forward, 150);  // halfway in log2 between 1K and 4K
  EXPECT_DOUBLE_EQ(t.rate("k2", true, 64, 512).backward, 100);   // clamped below
  EXPECT_DOUBLE_EQ(t.rate("k2", true, 64, 65536).forward, 200);  // and above
  // Between head dimensions 64 and 128 (d 90.5 = 2^6.5): the mean of the two dimensions' rates; at
  // d 128 the forward is measured at 1K only (clamped), the backward what forward_backward leaves.
  const double backward_128 = 2.5 / (3.5 / 250 - 1.0 / 200);
  EXPECT_NEAR(t.rate("k2", true, std::sqrt(64.0 * 128.0), 4096).backward, (200 + backward_128) / 2, 1e-9);
  // d 128 at 1K: forward 200 measured, forward_backward 150; the backward is what is left.
  const AttentionRate r = t.rate("k2", true, 128, 1024);
  EXPECT_DOUBLE_EQ(r.forward, 200);
  EXPECT_NEAR(3.5 / 150, 1.0 / r.forward + 2.5 / r.backward, 1e-12);
  EXPECT_DOUBLE_EQ(t.rate("k3", true, 128, 1024).backward, 240);
  EXPECT_TRUE(t.coverage_problem("k3", true).empty());
  EXPECT_NE(t.coverage_problem("k4", true).find("no causal forward"), std::string::npos);
  const AttentionTableLoad bad =
      parse_attention_table("kernel,pass,causal,head_dim,seq,tflops,source\nk,both,yes,128,-1,10,t\n", "a.csv");
  EXPECT_EQ(bad.errors.size(), 3u);
}

StepInputs layer_inputs()
{
  StepInputs in;
  in.workload.parameters = 1e9;
  in.workload.layers = 8;
  in.workload.hidden = 4096;
  in.workload.attention_heads = 32;
  in.workload.kv_heads = 32;
  in.workload.sequence_length = 4096;
  in.workload.global_batch_tokens = 4096;
  in.workload.flash_attention = true;
  in.accelerator.peak_flops = units::FlopsPerSecond(312e12);
  in.accelerator.hbm_bandwidth = units::BytesPerSecond(2e12);
  in.accelerator.gemm_curve.max_efficiency = 0.9;
  return in;
}

TEST(KernelTables, AMeasuredTableTimesEachPassAtItsOwnEfficiency)
{
  StepInputs in = layer_inputs();
  auto table = std::make_shared<GemmTable>();
  table->rows = {{4096, 4096, 4096, {0.8, 0.8, 0.8}, 1}};
  in.accelerator.gemm_curve.table = table;
  // The attention core at a measured rate, so that every GEMM of the layer is a large one.
  in.accelerator.gemm_curve.attention =
      std::make_shared<AttentionTable>(parse_attention_table(kAttentionCsv, "a.csv").table);
  const LayerCost even = layer_cost(in);
  // The same forward, a weight gradient at half the efficiency: the backward takes longer by exactly
  // one forward's worth of GEMM time (half as fast = twice as long).
  table->rows[0].efficiency[2] = 0.4;
  const LayerCost slow = layer_cost(in);
  EXPECT_DOUBLE_EQ(slow.forward_s, even.forward_s);
  double gemm_forward = 0;
  for (const Gemm& g : layer_gemms(in))
    gemm_forward += gemm_seconds(in.accelerator, g, 2);
  EXPECT_NEAR(slow.backward_s - even.backward_s, gemm_forward, 1e-9 * gemm_forward);
  // The table's efficiency never exceeds the ceiling.
  table->rows[0].efficiency = {1.0, 1.0, 1.0};
  EXPECT_NEAR(gemm_efficiency(in.accelerator, layer_gemms(in)[0], 2), 0.9, 0.05);
  EXPECT_LE(gemm_efficiency(in.accelerator, layer_gemms(in)[0], 2), 0.9);
}

TEST(KernelTables, FusedAttentionRunsAtTheMeasuredRate)
{
  StepInputs in = layer_inputs();
  auto table = std::make_shared<GemmTable>();
  table->rows = {{4096, 4096, 4096, {0.8, 0.8, 0.8}, 1}};
  in.accelerator.gemm_curve.table = table;
  auto attention = std::make_shared<AttentionTable>(parse_attention_table(kAttentionCsv, "a.csv").table);
  in.accelerator.gemm_curve.attention = attention;
  in.workload.attention_kernel = "k3";
  const auto cost = measured_attention(in);
  ASSERT_TRUE(cost.has_value());
  // 32 heads of d 128 at 4K, causal: 2 s^2 d per head; forward at 300 TFLOP/s, backward 2.5x at 240.
  const double flops = 32 * 2.0 * 4096.0 * 4096.0 * 128;
  EXPECT_DOUBLE_EQ(cost->forward_flops, flops);
  EXPECT_NEAR(cost->forward_s, flops / 300e12, 1e-12);
  EXPECT_NEAR(cost->backward_s, 2.5 * flops / 240e12, 1e-12);
  in.workload.flash_attention = false;
  EXPECT_FALSE(measured_attention(in).has_value());
}

TEST(KernelTables, ContextParallelAttentionRunsAtItsShorterLengthsRateAndTheRingsEfficiency)
{
  StepInputs in = layer_inputs();
  in.accelerator.gemm_curve.attention =
      std::make_shared<AttentionTable>(parse_attention_table(kAttentionCsv, "a.csv").table);
  in.workload.attention_kernel = "k2";
  in.accelerator.gemm_curve.cp_forward_efficiency = 0.9;
  in.accelerator.gemm_curve.cp_backward_efficiency = 0.8;
  const AttentionCost whole = *measured_attention(in);
  in.layout.cp = 2;
  const AttentionCost split = *measured_attention(in);
  // Half the FLOPs per GPU, at the rate of 2K queries rather than 4K, over the ring's efficiency.
  const AttentionTable& t = *in.accelerator.gemm_curve.attention;
  const AttentionRate at_4k = t.rate("k2", true, 128, 4096);
  const AttentionRate at_2k = t.rate("k2", true, 128, 2048);
  EXPECT_DOUBLE_EQ(split.forward_flops, whole.forward_flops / 2);
  EXPECT_NEAR(split.forward_s, whole.forward_s / 2 * at_4k.forward / at_2k.forward / 0.9, 1e-12);
  EXPECT_NEAR(split.backward_s, whole.backward_s / 2 * at_4k.backward / at_2k.backward / 0.8, 1e-12);
  EXPECT_GT(split.forward_s, whole.forward_s / 2 / 0.9);  // shorter kernels run further from peak
}

}  // namespace
}  // namespace fleetsim::models
