// The loader's checks of the step model's inputs: pods made of whole racks, and the simulated step
// limited to fleets SimGrid can hold one actor per GPU for. No SimGrid.
#include "simulator/scenario/scenario.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fleetsim::scenario {
namespace {

LoadResult load(std::string_view yaml, const std::vector<std::string>& overrides = {})
{
  return load_scenario_text(yaml, "test.yaml", overrides);
}

// 1,024 GPUs in racks of 16, 16 micro-batches per pipeline.
constexpr const char* kSmall = R"(cluster: {gpus: 1024, gpus_per_rack: 16}
parallelism: {tp: 8, pp: 16, dp: 8}
model: {global_batch_tokens: 1048576}
network:
  pod_size: 24
run: {step_model: simulated}
)";

// 32,768 GPUs, a consistent layout (8 micro-batches of the default 16M-token batch per pipeline).
constexpr const char* kLarge = R"(cluster: {gpus: 32768}
parallelism: {tp: 8, pp: 16, dp: 256}
run:
  step_model: simulated
)";

TEST(StepModelChecks, PodThatIsNotWholeRacksIsRejectedAtNetworkPodSize)
{
  for (const std::string model : {"simulated", "analytic"}) {
    SCOPED_TRACE(model);
    const LoadResult r = load(kSmall, {"run.step_model=" + model});
    ASSERT_EQ(r.diagnostics.items().size(), 1u) << r.diagnostics.to_string();
    EXPECT_FALSE(r.scenario.has_value());
    const Diagnostic& d = r.diagnostics.items().front();
    EXPECT_NE(d.message.find("network.pod_size"), std::string::npos) << d.message;
    EXPECT_NE(d.message.find("cluster.gpus_per_rack"), std::string::npos) << d.message;
    EXPECT_EQ(d.where.line, 5) << d.to_string();  // at `pod_size: 24`
  }
  // Whole racks (48 = 3 racks), a single pod (0), and pods of 16 when racks hold 8 GPUs are fine.
  for (const std::vector<std::string>& sets : {std::vector<std::string>{"network.pod_size=48"},
                                               {"network.pod_size=0"},
                                               {"network.pod_size=16", "cluster.gpus_per_rack=8"}}) {
    const LoadResult r = load(kSmall, sets);
    EXPECT_TRUE(r.scenario.has_value()) << ::testing::PrintToString(sets) << r.diagnostics.to_string();
  }
  // The same rule when the rack size is what changes.
  const LoadResult r = load(kSmall, {"network.pod_size=64", "cluster.gpus_per_rack=48"});
  ASSERT_EQ(r.diagnostics.items().size(), 1u) << r.diagnostics.to_string();
  EXPECT_NE(r.diagnostics.items().front().message.find("network.pod_size"), std::string::npos);
}

TEST(StepModelChecks, SimulatedStepAbove30000GpusIsRejectedAndAnalyticAccepted)
{
  const LoadResult simulated = load(kLarge);
  ASSERT_EQ(simulated.diagnostics.items().size(), 1u) << simulated.diagnostics.to_string();
  EXPECT_FALSE(simulated.scenario.has_value());
  const Diagnostic& d = simulated.diagnostics.items().front();
  EXPECT_NE(d.message.find("run.step_model"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find(std::to_string(kMaxSimulatedGpus)), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("analytic"), std::string::npos) << d.message;
  EXPECT_EQ(d.where.line, 1) << d.to_string();  // at `cluster: {gpus: 32768}`
  EXPECT_EQ(kMaxSimulatedGpus, 30000);

  const LoadResult analytic = load(kLarge, {"run.step_model=analytic"});
  ASSERT_TRUE(analytic.scenario.has_value()) << analytic.diagnostics.to_string();
  EXPECT_EQ(analytic.scenario->step_model, "analytic");
  EXPECT_EQ(analytic.scenario->fleet.gpus, 32768);

  // The default step model is the simulated one, so leaving it out is rejected too.
  const LoadResult by_default = load("cluster: {gpus: 32768}\nparallelism: {tp: 8, pp: 16, dp: 256}\n");
  EXPECT_FALSE(by_default.scenario.has_value());
  EXPECT_EQ(by_default.diagnostics.items().size(), 1u) << by_default.diagnostics.to_string();
}

TEST(StepModelChecks, SimulatedStepAtTheLimitIsAccepted)
{
  // 30,000 = 8 x 3,750 GPUs: TP 8, PP 1, DP 3,750, one micro-batch of one sequence per replica.
  const LoadResult r = load(
      "cluster: {gpus: 30000}\nparallelism: {tp: 8, pp: 1, dp: 3750}\n"
      "model: {global_batch_tokens: 30720000}\nrun: {step_model: simulated}\n");
  EXPECT_TRUE(r.scenario.has_value()) << r.diagnostics.to_string();
  const LoadResult over = load(
      "cluster: {gpus: 30008}\nparallelism: {tp: 8, pp: 1, dp: 3751}\n"
      "model: {global_batch_tokens: 30728192}\nrun: {step_model: simulated}\n");
  EXPECT_FALSE(over.scenario.has_value());
  EXPECT_EQ(over.diagnostics.items().size(), 1u) << over.diagnostics.to_string();
}

TEST(StepModelChecks, ExpertAllToAllTooLargeToSimulateIsRejectedAtParallelismEp)
{
  // 1,024 GPUs at ep 1,024: 1,047,552 concurrent flows in one all-to-all.
  const char* yaml = R"(cluster: {gpus: 1024}
model: {parameters: 1e9, expert_parameters: 5e8, experts: 1024, layers: 4, global_batch_tokens: 8388608}
parallelism: {tp: 1, pp: 1, dp: 1024, ep: 1024}
run: {step_model: simulated}
)";
  const LoadResult r = load(yaml);
  ASSERT_EQ(r.diagnostics.items().size(), 1u) << r.diagnostics.to_string();
  EXPECT_EQ(r.diagnostics.items()[0].where.line, 3);
  EXPECT_NE(r.diagnostics.items()[0].message.find("1047552 flows"), std::string::npos);
  EXPECT_TRUE(load(yaml, {"parallelism.ep=64", "model.experts=64"}).diagnostics.empty());
  EXPECT_TRUE(load(yaml, {"run.step_model=analytic"}).diagnostics.empty());
}

TEST(StepModelChecks, AnExpertSettingGivenOnTheCommandLineIsNamedInItsError)
{
  const LoadResult r = load(kLarge, {"model.experts=8", "run.step_model=analytic", "cluster.gpus=32768"});
  ASSERT_FALSE(r.diagnostics.empty());
  const std::string text = r.diagnostics.to_string();
  EXPECT_NE(text.find("--set model.experts:"), std::string::npos) << text;
  EXPECT_NE(text.find("expert parameters"), std::string::npos) << text;
}

// A 70B dense model at tp 8, pp 4, dp 2 on 64 A100-like GPUs, with the memory check on.
constexpr const char* kMemory = R"(cluster: {gpus: 64}
accelerator: {memory: 80GB, memory_check: true}
model: {parameters: 70e9, layers: 80, hidden: 8192, attention_heads: 64, kv_heads: 8, sequence_length: 4096,
        global_batch_tokens: 1048576}
parallelism: {tp: 8, pp: 4, dp: 2}
run: {step_model: analytic}
)";

TEST(StepModelChecks, ALayoutThatDoesNotFitInHbmIsRejectedAtTheMemoryCheckNamingTheBiggestTerm)
{
  // Materialised scores of 64 query heads over 4,096 keys for every in-flight micro-batch: activations.
  const LoadResult r = load(kMemory);
  ASSERT_EQ(r.diagnostics.items().size(), 1u) << r.diagnostics.to_string();
  EXPECT_FALSE(r.scenario.has_value());
  const Diagnostic& d = r.diagnostics.items().front();
  EXPECT_NE(d.message.find("does not fit in HBM"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("the biggest term is the activations"), std::string::npos) << d.message;
  EXPECT_EQ(d.where.line, 2) << d.to_string();  // at `memory_check: true`
  // Flash attention and selective recomputation drop the scores; the layout then fits.
  const LoadResult fits = load(kMemory, {"model.flash_attention=true", "model.recompute=selective"});
  EXPECT_TRUE(fits.scenario.has_value()) << fits.diagnostics.to_string();
  // With the check off (the default) the same layout loads.
  EXPECT_TRUE(load(kMemory, {"accelerator.memory_check=false"}).scenario.has_value());
  // One GPU per replica: 70e9 x 18 bytes, the optimizer state is the biggest term.
  const LoadResult one = load(kMemory, {"parallelism.tp=1", "parallelism.pp=1", "parallelism.dp=64",
                                        "model.attention_heads=64", "model.recompute=full"});
  ASSERT_EQ(one.diagnostics.items().size(), 1u) << one.diagnostics.to_string();
  EXPECT_NE(one.diagnostics.items().front().message.find("the biggest term is the optimizer state"), std::string::npos)
      << one.diagnostics.to_string();
}

TEST(StepModelChecks, HeadsThatTensorParallelismCannotSplitAreRejectedAtTheHeads)
{
  const LoadResult r = load(kMemory,
                            {"accelerator.memory_check=false", "model.attention_heads=60", "model.kv_heads=12"});
  ASSERT_EQ(r.diagnostics.items().size(), 1u) << r.diagnostics.to_string();
  const Diagnostic& d = r.diagnostics.items().front();
  EXPECT_NE(d.message.find("attention heads (60) are not a multiple of tp (8)"), std::string::npos) << d.message;
}

TEST(StepModelChecks, AnUnknownRecomputationModeIsRejectedWithItsChoices)
{
  const LoadResult r = load(kMemory, {"model.recompute=partial"});
  ASSERT_FALSE(r.diagnostics.items().empty());
  const std::string text = r.diagnostics.to_string();
  EXPECT_NE(text.find("model.recompute"), std::string::npos) << text;
  EXPECT_NE(text.find("selective"), std::string::npos) << text;
}

}  // namespace
}  // namespace fleetsim::scenario
