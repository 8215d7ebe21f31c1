// The pipeline with embedding chunks (ParallelLayout::embedding_chunks): Llama 3's first chunk
// holds only the embedding and its last only the output layer and loss ([L3] section 3.3.2).
#include "llama3_inputs.hpp"
#include "models/step/iteration_plan.hpp"
#include "models/step/layer_cost.hpp"
#include "models/step/memory_model.hpp"
#include "models/step/step_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace fleetsim::models {
namespace {

StepInputs llama3_paper_pipeline(bool embedding_chunks, int v)
{
  StepInputs in = llama3_405b_inputs();
  in.layout.tp = 8;
  in.layout.pp = 16;
  in.layout.dp = 128;
  in.layout.virtual_stages = v;
  in.layout.embedding_chunks = embedding_chunks;
  return in;
}

TEST(EmbeddingChunks, Llama3sPipelineHoldsOneLayerPerChunkAndOneFewerOnTheEdgeStages)
{
  const StepInputs in = llama3_paper_pipeline(true, 8);
  EXPECT_EQ(in.layout.layer_chunks(), 126);
  EXPECT_DOUBLE_EQ(layers_per_chunk(in.workload, in.layout), 1.0);
  EXPECT_DOUBLE_EQ(stage_layers(in.workload, in.layout, 0), 7.0);
  EXPECT_DOUBLE_EQ(stage_layers(in.workload, in.layout, 1), 8.0);
  EXPECT_DOUBLE_EQ(stage_layers(in.workload, in.layout, 15), 7.0);
  double total = 0;
  for (int s = 0; s < 16; ++s)
    total += stage_layers(in.workload, in.layout, s);
  EXPECT_DOUBLE_EQ(total, 126.0);
  EXPECT_FALSE(in.layout.chunk_holds_layers(0, 0));
  EXPECT_TRUE(in.layout.chunk_holds_layers(0, 1));
  EXPECT_TRUE(in.layout.chunk_holds_layers(15, 0));
  EXPECT_FALSE(in.layout.chunk_holds_layers(15, 7));
  EXPECT_TRUE(check_step_inputs(in, 16384).empty());

  // Without them the same v does not fit 126 layers; v = 4 spreads them evenly, 1.97 per chunk.
  StepInputs plain = llama3_paper_pipeline(false, 8);
  const auto errors = check_step_inputs(plain, 16384);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("fewer than pp*virtual stages (128)"), std::string::npos) << errors[0];
  plain.layout.virtual_stages = 4;
  EXPECT_DOUBLE_EQ(layers_per_chunk(plain.workload, plain.layout), 126.0 / 64);
  EXPECT_DOUBLE_EQ(stage_layers(plain.workload, plain.layout, 0), 126.0 / 16);
  EXPECT_TRUE(plain.layout.chunk_holds_layers(0, 0));
}

TEST(EmbeddingChunks, NeedAtLeastOneChunkOfLayers)
{
  StepInputs in = llama3_paper_pipeline(true, 1);
  in.layout.pp = 2;
  in.layout.dp = 1024;
  const auto errors = check_step_inputs(in, 16384);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].find("at least 3 chunks"), std::string::npos) << errors[0];
  in.layout.virtual_stages = 2;  // 4 chunks: 2 of layers, 63 each
  EXPECT_TRUE(check_step_inputs(in, 16384).empty());
  EXPECT_DOUBLE_EQ(layers_per_chunk(in.workload, in.layout), 63.0);
  EXPECT_DOUBLE_EQ(stage_layers(in.workload, in.layout, 0), 63.0);
  EXPECT_DOUBLE_EQ(stage_layers(in.workload, in.layout, 1), 63.0);
}

// The analytic step: the critical stage is a middle stage's v chunks of layers or the last stage's
// v - 1 plus the logits, whichever is longer; the bubble is p - 1 chunks' passes of each micro-batch.
TEST(EmbeddingChunks, AnalyticStepChargesTheBusiestStageAndABubbleOfOneChunkPerStage)
{
  const StepInputs in = llama3_paper_pipeline(true, 8);
  const StepBreakdown b = AnalyticStepModel().step(in);
  const LayerCost c = layer_cost(in);
  const double pass = c.forward_s + c.backward_s;  // one layer, one micro-batch
  const double logits = logits_forward_seconds(in) + logits_backward_seconds(in);
  ASSERT_EQ(b.micro_batches, 16);
  const double critical = std::max(8 * pass, 7 * pass + logits) * 16;
  EXPECT_NEAR(b.compute.si(), critical + optimizer_seconds(in) + b.overlap.si() * in.fabric.overlap_slowdown,
              1e-12 * critical);
  EXPECT_NEAR(b.bubble.si(), 15 * pass, 1e-12 * b.bubble.si());

  // Against the even spread at v = 4: the bubble halves (one layer per chunk, not 1.97) and the last
  // stage no longer carries the logits on top of a full stage.
  const StepBreakdown even = AnalyticStepModel().step(llama3_paper_pipeline(false, 4));
  EXPECT_NEAR(even.bubble.si(), 15 * pass * 126.0 / 64, 1e-12 * even.bubble.si());
  EXPECT_LT(b.step_time.si(), even.step_time.si());
  EXPECT_LT(b.compute.si(), even.compute.si());
}

TEST(EmbeddingChunks, IterationPlanTimesAChunkOfOneLayer)
{
  StepInputs in = llama3_paper_pipeline(true, 8);
  const IterationPlan plan = make_iteration_plan(in);
  const LayerCost c = layer_cost(in);
  EXPECT_NEAR(plan.forward_work, c.forward_s * in.accelerator.peak_flops.si(), 1e-9 * plan.forward_work);
  EXPECT_DOUBLE_EQ(plan.tp_allreduces_per_pass, 2.0);
  // Model FLOPs per layer chunk: the step's over the 126 chunks of layers of every pipeline.
  const double per_chunk = plan.flops_per_token * plan.tokens_per_step / 16384 / (16 * 126.0 / 16);
  EXPECT_NEAR(plan.forward_flops, per_chunk / 3, 1e-9 * plan.forward_flops);
}

// Memory: the middle stages hold 8 layers, the edge stages 7 and the embedding or output layer.
TEST(EmbeddingChunks, EdgeStagesHoldALayerFewerAndTheEmbedding)
{
  StepInputs in = llama3_paper_pipeline(true, 8);
  in.accelerator.check_memory = true;
  const MemoryEstimate e = estimate_memory(in);
  const double embedding = static_cast<double>(in.workload.vocabulary) * in.workload.hidden;
  const double layer = (in.workload.parameters - embedding) / 126 / 8;
  const bool edge = e.stage == 0 || e.stage == 15;
  EXPECT_NEAR(e.parameters, edge ? 7 * layer + embedding / 8 : 8 * layer, 1e-6 * e.parameters);
}

}  // namespace
}  // namespace fleetsim::models
