// One training iteration simulated on the fabric (simulator/run/step_simulation.cpp): the pipeline
// bubble of the played schedule is the textbook (p-1)/(v m), the fleet-law decomposition adds up,
// compute agrees with the analytic model, pod oversubscription slows the data-parallel rings by the
// factor max-min sharing predicts, and resolve_step's on-disk cache returns what it stored.
// Every simulation runs in a forked child (one SimGrid Engine per process).
#include "run_in_child.hpp"

#include "models/step/layer_cost.hpp"
#include "models/step/step_model.hpp"
#include "simulator/run/run.hpp"
#include "simulator/run/step_simulation.hpp"
#include "simulator/run/step_source.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace fleetsim::testing {
namespace {

namespace fs = std::filesystem;

// A small simulated-step scenario: the Llama 3 405B model and H100s of the parameter defaults, on
// 1,024 GPUs at TP 8 x PP 16 x DP 8 with one 8,192-token sequence per micro-batch. Tests change the
// layout and batch with overrides.
constexpr const char* kSmall = R"(name: small_step
cluster: {gpus: 1024}
parallelism: {tp: 8, pp: 16, dp: 8, virtual_stages: 1}
model: {global_batch_tokens: 1048576}
run: {step_model: simulated}
)";

// global_batch_tokens for m micro-batches per pipeline: sequence * micro_batch_size * dp * m.
std::string batch_for(int dp, int m) { return "model.global_batch_tokens=" + std::to_string(8192L * dp * m); }

scenario::Scenario load(const std::string& yaml, const std::vector<std::string>& sets)
{
  auto r = scenario::load_scenario_text(yaml, "small_step.yaml", sets);
  if (!r.scenario)
    throw std::runtime_error(r.diagnostics.to_string());
  return *r.scenario;
}

// simulate_step in a child; its breakdown and fabric timings as JSON (doubles round-trip exactly).
nlohmann::json simulate(const scenario::Scenario& s)
{
  const std::string text = in_child([&] {
    const sim::SimulatedStep r = sim::simulate_step(s);
    nlohmann::json j;
    j["breakdown"] = sim::breakdown_to_json(r.breakdown);
    j["tp_allreduce_s"] = r.tp_allreduce_s;
    j["pp_transfer_s"] = r.pp_transfer_s;
    j["dp_reduce_scatter_chunk_s"] = r.dp_reduce_scatter_chunk_s;
    j["pp_exposed_s"] = r.pp_exposed_s;
    j["dp_exposed_s"] = r.dp_exposed_s;
    j["pods"] = r.pods;
    j["racks"] = r.racks;
    j["checkpoint_write_s"] = r.checkpoint_write_s;
    j["step_time_during_checkpoint_s"] = r.step_time_during_checkpoint_s;
    j["contended_dp_s"] = r.contended.dp_reduce_scatter;
    j["contended_transfer_s"] = r.contended.transfer;
    j["slow_stage"] = r.slow_stage;
    j["slow_speed"] = r.slow_speed;
    j["step_time_with_slow_node_s"] = r.step_time_with_slow_node_s;
    j["critical_stage"] = r.critical_stage;
    return j.dump();
  });
  if (text.empty())
    throw std::runtime_error("the step simulation child failed");
  return nlohmann::json::parse(text);
}

double num(const nlohmann::json& j, const char* key) { return j.at(key).get<double>(); }

// ---- the bubble -----------------------------------------------------------------------------------

TEST(StepSimulation, BubbleIsPMinus1OverVMOfComputePlusTensorParallelTime)
{
  // The bubble is measured on the schedule played with free PP and DP traffic: every stage does
  // m v forward and backward chunk passes (Execs plus their TP all-reduces), and the 1F1B /
  // interleaved order idles each stage (p-1) chunk passes, so bubble = (p-1)/(v m) (compute + tp).
  struct Case {
    int pp, dp, v, m;
  };
  for (const Case c : {Case{16, 8, 1, 16}, Case{16, 8, 2, 16}, Case{16, 8, 2, 32}, Case{8, 16, 1, 8},
                       Case{8, 16, 1, 12}, Case{8, 16, 2, 8}, Case{8, 16, 4, 16}}) {
    SCOPED_TRACE("pp " + std::to_string(c.pp) + " dp " + std::to_string(c.dp) + " v " + std::to_string(c.v) + " m " +
                 std::to_string(c.m));
    const auto s = load(kSmall, {"parallelism.pp=" + std::to_string(c.pp), "parallelism.dp=" + std::to_string(c.dp),
                                 "parallelism.virtual_stages=" + std::to_string(c.v), batch_for(c.dp, c.m)});
    const auto b = simulate(s).at("breakdown");
    ASSERT_EQ(b.at("micro_batches").get<int>(), c.m);
    const double busy = num(b, "compute_s") + num(b, "tp_comm_s");
    const double expected = (c.pp - 1.0) / (c.v * c.m) * busy;
    EXPECT_GT(num(b, "tp_comm_s"), 0);
    EXPECT_NEAR(num(b, "bubble_s"), expected, 1e-6 * expected);
    // The analytic model's fraction, for the same p, v, m.
    EXPECT_NEAR(num(b, "bubble_s") / busy, models::pipeline_bubble_fraction(c.pp, c.m, c.v), 1e-6);
  }
}

// ---- one slow node -----------------------------------------------------------------------------------

TEST(StepSimulation, OneSlowStageStretchesTheIterationButItsBubbleAbsorbsPartOfIt)
{
  // One GPU of the middle stage at half speed (a SimGrid speed profile). The slow stage's own busy
  // time bounds the step from below; every stage slowed (compute and the bubble it paces) bounds it
  // from above. The replay's (1 - c) + c / s sits between: the slow stage eats into its bubble.
  for (int m : {8, 32}) {
    SCOPED_TRACE("m " + std::to_string(m));
    const auto s = load(kSmall, {"parallelism.pp=8", "parallelism.dp=16", batch_for(16, m),
                                 "stragglers.persistent_fraction=0.01", "stragglers.persistent_speed=0.5"});
    const auto j = simulate(s);
    const auto& b = j.at("breakdown");
    ASSERT_EQ(j.at("slow_stage").get<int>(), 4);
    const double a = 1 / num(j, "slow_speed");
    const double T = num(b, "step_time_s");
    const double slow = num(j, "step_time_with_slow_node_s");
    const double compute = num(b, "compute_s");
    EXPECT_GT(slow, T);
    EXPECT_GE(slow, a * compute + num(b, "tp_comm_s"));
    EXPECT_LE(slow, T + (a - 1) * (compute + num(b, "bubble_s")) + 1e-9);
    EXPECT_LT(slow, T * ((1 - num(b, "compute_fraction")) + num(b, "compute_fraction") * a));
  }
}

// ---- the logits on the last stage ------------------------------------------------------------------

TEST(StepSimulation, TheLogitGemmMakesTheLastStageCriticalAndCostsEveryMicroBatchOnce)
{
  // With kernel times by shape, the logit GEMM (h x V per token) runs on the model's last chunk
  // only: the last stage becomes the critical one, and the step grows by about m x 3 x its forward
  // time (every micro-batch's forward and backward wait for it), not by that over p. The analytic
  // model charges all of it to its critical stage; the played schedule hides a little of it in
  // the pipeline's fill and drain (6 % at p = 8, m = 8, v = 1).
  const std::vector<std::string> curve = {"accelerator.gemm.max_efficiency=0.8",
                                          "accelerator.gemm.kernel_overhead=5.5us",
                                          "accelerator.hbm_bandwidth=3.35TB/s"};
  for (int v : {1, 2}) {
    SCOPED_TRACE("v " + std::to_string(v));
    auto sets = curve;
    for (const std::string& k : {std::string("parallelism.pp=8"), std::string("parallelism.dp=16"), batch_for(16, 8),
                                 "parallelism.virtual_stages=" + std::to_string(v)})
      sets.push_back(k);
    const auto without = load(kSmall, sets);
    sets.push_back("model.vocabulary=128256");
    const auto with = load(kSmall, sets);
    const auto a = simulate(without);
    const auto b = simulate(with);
    EXPECT_EQ(b.at("critical_stage").get<int>(), 7);
    const double grown = num(b.at("breakdown"), "step_time_s") - num(a.at("breakdown"), "step_time_s");
    const double analytic = models::AnalyticStepModel().step(with.step).step_time.si() -
                            models::AnalyticStepModel().step(without.step).step_time.si();
    EXPECT_GT(analytic, 0);
    EXPECT_LE(grown, analytic * (1 + 1e-6));
    EXPECT_GE(grown, 0.9 * analytic);
    EXPECT_GT(num(b.at("breakdown"), "compute_s"), num(a.at("breakdown"), "compute_s"));
  }
}

TEST(StepSimulation, FullRecomputationRunsTheForwardsTensorParallelAllReducesAgain)
{
  // The recomputed forward repeats its two all-reduces per layer: a micro-batch's passes carry six
  // instead of four, and the stage waits for them, so the step grows by the extra TP time (plus
  // the recomputation's compute, which the decomposition counts separately).
  const std::vector<std::string> base = {"parallelism.pp=8", "parallelism.dp=16", batch_for(16, 8)};
  auto with = [&](const char* mode) {
    auto sets = base;
    sets.push_back(std::string("model.recompute=") + mode);
    return simulate(load(kSmall, sets)).at("breakdown");
  };
  const auto none = with("none");
  const auto selective = with("selective");
  const auto full = with("full");
  ASSERT_GT(num(none, "tp_comm_s"), 0);
  EXPECT_NEAR(num(full, "tp_comm_s"), 1.5 * num(none, "tp_comm_s"), 1e-9);
  EXPECT_NEAR(num(selective, "tp_comm_s"), num(none, "tp_comm_s"), 1e-12);
  const double extra = num(full, "tp_comm_s") - num(none, "tp_comm_s");
  const double grown = num(full, "step_time_s") - num(none, "step_time_s") -
                       (num(full, "compute_s") - num(none, "compute_s")) * (1 + 7.0 / 8);  // + its bubble
  EXPECT_NEAR(grown, extra * (1 + 7.0 / 8), 0.02 * extra);
  // The analytic step charges the same count.
  auto s = load(kSmall, base);
  const double analytic_none = models::AnalyticStepModel().step(s.step).tp_comm.si();
  s.step.workload.recompute = models::Recompute::Full;
  EXPECT_NEAR(models::AnalyticStepModel().step(s.step).tp_comm.si(), 1.5 * analytic_none, 1e-9);
}

TEST(StepSimulation, SequenceParallelismRegathersTheInputsOnTheBackwardsCriticalPath)
{
  // The backward's re-gathered inputs: a micro-batch's two passes carry five all-reduces' worth of
  // TP bytes per layer instead of four (the backward three), the simulated stage waits for them, and
  // the analytic step counts the same.
  const std::vector<std::string> base = {"parallelism.pp=8", "parallelism.dp=16", batch_for(16, 8)};
  auto with = [&](const char* sp) {
    auto sets = base;
    sets.push_back(std::string("parallelism.sequence_parallel=") + sp);
    return simulate(load(kSmall, sets)).at("breakdown");
  };
  const auto plain = with("false");
  const auto sp = with("true");
  ASSERT_GT(num(plain, "tp_comm_s"), 0);
  EXPECT_NEAR(num(sp, "tp_comm_s"), 5.0 / 4.0 * num(plain, "tp_comm_s"), 1e-9);
  const double extra = num(sp, "tp_comm_s") - num(plain, "tp_comm_s");
  const double grown = num(sp, "step_time_s") - num(plain, "step_time_s");
  EXPECT_NEAR(grown, extra * (1 + 7.0 / 8), 0.02 * extra);  // on the critical path and in its bubble
  auto s = load(kSmall, base);
  s.step.layout.sequence_parallel = true;
  EXPECT_NEAR(models::AnalyticStepModel().step(s.step).tp_comm.si(), num(sp, "tp_comm_s"), 0.02 * num(sp, "tp_comm_s"));
}

TEST(StepSimulation, GradientsAfterTheFlushExposeEveryChunksReduceScatter)
{
  // Megatron's local DDP starts the gradient reduce-scatter after the stage's whole backward: the
  // chunks released early (v = 2) no longer hide under the remaining backwards, and the first
  // stage, whose backwards end last, waits for all v of its reduce-scatters.
  std::vector<std::string> sets = {"parallelism.pp=8", "parallelism.dp=16", "parallelism.virtual_stages=2",
                                   batch_for(16, 8)};
  const auto overlapped = simulate(load(kSmall, sets));
  sets.push_back("parallelism.gradients_after_flush=true");
  const auto flushed = simulate(load(kSmall, sets));
  const double chunk = num(flushed, "dp_reduce_scatter_chunk_s");
  ASSERT_GT(chunk, 0);
  EXPECT_GT(num(flushed, "dp_exposed_s"), num(overlapped, "dp_exposed_s") + 0.5 * chunk);
  EXPECT_GE(num(flushed, "dp_exposed_s"), 2 * chunk * (1 - 1e-6));
  const double grown = num(flushed.at("breakdown"), "step_time_s") - num(overlapped.at("breakdown"), "step_time_s");
  EXPECT_NEAR(grown, num(flushed, "dp_exposed_s") - num(overlapped, "dp_exposed_s"), 1e-9);
  // Nothing else moves: the same passes and TP time.
  EXPECT_DOUBLE_EQ(num(flushed.at("breakdown"), "compute_s"), num(overlapped.at("breakdown"), "compute_s"));
  EXPECT_DOUBLE_EQ(num(flushed.at("breakdown"), "tp_comm_s"), num(overlapped.at("breakdown"), "tp_comm_s"));
}

TEST(StepSimulation, TheOptimizerStepRunsOnceTheGradientsAreReduced)
{
  // With kernel times by shape, each stage ends with its optimizer step: the played step grows by
  // exactly its time, which counts as compute. The distributed optimizer updates a 1/dp shard.
  const std::vector<std::string> base = {"parallelism.pp=8", "parallelism.dp=16", batch_for(16, 8),
                                         "accelerator.gemm.max_efficiency=0.8",
                                         "accelerator.gemm.kernel_overhead=5.5us"};
  auto with_hbm = [&](const char* hbm, bool sharded) {
    auto sets = base;
    sets.push_back(std::string("accelerator.hbm_bandwidth=") + hbm);
    sets.push_back(std::string("parallelism.distributed_optimizer=") + (sharded ? "true" : "false"));
    const auto s = load(kSmall, sets);
    return std::make_pair(models::optimizer_seconds(s.step), simulate(s).at("breakdown"));
  };
  const auto [whole_s, whole] = with_hbm("3.35TB/s", false);
  const auto [shard_s, shard] = with_hbm("3.35TB/s", true);
  ASSERT_GT(whole_s, 0.01);  // 405e9 / 128 parameters x 42 bytes at 3.35 TB/s
  EXPECT_NEAR(shard_s, (whole_s - 4 * 5.5e-6) / 16 + 4 * 5.5e-6, 1e-12);
  EXPECT_NEAR(num(whole, "step_time_s") - num(shard, "step_time_s"), whole_s - shard_s, 1e-9);
  EXPECT_NEAR(num(whole, "compute_s") - num(shard, "compute_s"), whole_s - shard_s, 1e-9);
  EXPECT_NEAR(num(whole, "bubble_s"), num(shard, "bubble_s"), 1e-9);
}

// ---- the time that is not GEMMs (issue 32) -----------------------------------------------------------

TEST(StepSimulation, HiddenTensorParallelTrafficSlowsEveryPassByItsShare)
{
  // One stage: each pass's compute grows by overlap_slowdown x the TP time hidden behind it, a
  // forward's once and a backward's tp_backward_collectives (1 here) times.
  std::vector<std::string> sets = {"parallelism.pp=1", "parallelism.dp=128", batch_for(128, 2),
                                   "network.tp_overlap=0.5"};
  const auto plain = simulate(load(kSmall, sets));
  sets.push_back("network.overlap_slowdown=0.2");
  const auto slowed = simulate(load(kSmall, sets));
  const double hidden_per_pass = 2.0 * 126 * num(plain, "tp_allreduce_s") * 0.5;  // 2 all-reduces a layer
  const double expected = 0.2 * hidden_per_pass * (2 + 2);                       // m = 2 forwards, 2 backwards
  ASSERT_GT(expected, 0);
  const double grown = num(slowed.at("breakdown"), "compute_s") - num(plain.at("breakdown"), "compute_s");
  EXPECT_NEAR(grown, expected, 1e-9);
  EXPECT_NEAR(num(slowed.at("breakdown"), "step_time_s") - num(plain.at("breakdown"), "step_time_s"), expected, 1e-9);
}

TEST(StepSimulation, DataParallelTrafficUnderTheComputeSlowsItAndPipelineSendsPayTheirFixedCost)
{
  // v = 2: a chunk's all-gather and reduce-scatter run while the stage computes the other chunk.
  std::vector<std::string> sets = {"parallelism.pp=8", "parallelism.dp=16", "parallelism.virtual_stages=2",
                                   batch_for(16, 8)};
  const auto plain = simulate(load(kSmall, sets));
  auto with = [&](const std::string& extra) {
    auto more = sets;
    more.push_back(extra);
    return simulate(load(kSmall, more));
  };
  const auto slowed = with("network.overlap_slowdown=0.5");
  const double chunk = num(plain, "dp_reduce_scatter_chunk_s");
  const auto& pb = plain.at("breakdown");
  const double grown = num(slowed.at("breakdown"), "step_time_s") - num(pb, "step_time_s");
  // Of a stage's 2 v = 4 chunk collectives, the first gather runs before anything computes and the
  // last reduce-scatter after the last backward: the other two (chunk 2's gather under chunk 1's
  // forwards, chunk 2's reduce-scatter under chunk 1's last backwards) can run under compute. So the
  // compute grows by at most 0.5 x 2 chunks, and by at least that share of it which the passes spend
  // computing rather than in their exposed TP all-reduces: 0.5 x 2 chunks x compute / (compute + TP).
  const double most = 0.5 * 2 * chunk;
  const double least = most * num(pb, "compute_s") / (num(pb, "compute_s") + num(pb, "tp_comm_s"));
  ASSERT_LT(least, 0.95 * most);  // the band is narrower than the 4 collectives' spread
  EXPECT_GE(grown, least);
  EXPECT_LE(grown, most * (1 + 1e-9));
  EXPECT_NEAR(num(slowed.at("breakdown"), "compute_s") - num(pb, "compute_s"), grown, 1e-9);  // stage 0 binds
  // Each pipeline transfer takes its fixed cost longer; the step grows, the compute does not.
  const auto paid = with("network.pp_overhead=1ms");
  EXPECT_NEAR(num(paid, "pp_transfer_s") - num(plain, "pp_transfer_s"), 1e-3, 1e-12);
  EXPECT_GT(num(paid.at("breakdown"), "step_time_s"), num(plain.at("breakdown"), "step_time_s") + 1e-3);
  EXPECT_DOUBLE_EQ(num(paid.at("breakdown"), "compute_s"), num(plain.at("breakdown"), "compute_s"));
}

TEST(StepSimulation, BucketedDataParallelOverlapHidesTheReduceScatterUnderTheLastBackward)
{
  // One stage, one chunk: without overlap the all-gather precedes the first forward and the
  // reduce-scatter follows the last backward, both exposed; bucketed, each runs beside that pass,
  // so the step shrinks, by at most the two collectives, and the compute does not change.
  std::vector<std::string> sets = {"parallelism.pp=1", "parallelism.dp=128", batch_for(128, 2)};
  const auto plain = simulate(load(kSmall, sets));
  sets.push_back("parallelism.overlap_data_parallel=true");
  const auto bucketed = simulate(load(kSmall, sets));
  const double chunk = num(plain, "dp_reduce_scatter_chunk_s");
  const double saved = num(plain.at("breakdown"), "step_time_s") - num(bucketed.at("breakdown"), "step_time_s");
  ASSERT_GT(chunk, 0);
  // Megatron-Core's buckets: max(40M, 1M x dp) = 128M parameters; a GPU's chunk holds 405e9 / 8 (TP)
  // parameters, so n = ceil(395.5) = 396 buckets. The first forward starts when the first bucket has
  // arrived (AG / n), and ends no earlier than the last bucket plus its share of the pass: it ends
  // (1 - 1/n) min(AG, F) sooner. The reduce-scatter starts with the last backward's first bucket and
  // ends one bucket's share after that pass: (1 - 1/n) min(RS, B) sooner. F and B = 2 F are a
  // micro-batch's passes: the compute is m (F + B) = 6 F with m = 2 and no recomputation.
  const double forward = num(plain.at("breakdown"), "compute_s") / 6;
  const double expected = (1 - 1.0 / 396) * (std::min(chunk, forward) + std::min(chunk, 2 * forward));
  EXPECT_NEAR(saved, expected, 1e-6 * expected);
  EXPECT_LT(num(bucketed, "dp_exposed_s"), num(plain, "dp_exposed_s"));
  EXPECT_DOUBLE_EQ(num(bucketed.at("breakdown"), "compute_s"), num(plain.at("breakdown"), "compute_s"));
}

TEST(StepSimulation, ShardedWeightsGatherForEveryPassAndReduceScatterAfterEveryBackward)
{
  // ZeRO-3 on one stage of TP 8 x DP 128, two micro-batches: each pass all-gathers the stage's weights
  // and each backward reduce-scatters its FP32 gradients (twice the BF16 bytes), so the DP stream
  // carries 2 x (2 gathers + 2 gathers' worth). On 4 Tb/s NICs FSDP's layer-by-layer prefetch hides
  // nearly all of it behind the compute; on the default 400 Gb/s ones the traffic outlasts the compute
  // and the step is at least the stream's time.
  std::vector<std::string> sets = {"parallelism.pp=1", "parallelism.dp=128", batch_for(128, 2),
                                   "parallelism.sharded_weights=true"};
  const auto slow = simulate(load(kSmall, sets));
  sets.push_back("network.nic_bandwidth=4000Gbps");
  const auto fast = simulate(load(kSmall, sets));
  for (const auto& j : {slow, fast}) {
    const double gather = num(j, "dp_reduce_scatter_chunk_s");
    ASSERT_GT(gather, 0);
    EXPECT_NEAR(num(j.at("breakdown"), "dp_comm_s"), 2 * (2 * gather + 2 * gather), 1e-9);
  }
  const auto b = fast.at("breakdown");
  EXPECT_LT(num(b, "dp_comm_s"), num(b, "compute_s"));
  EXPECT_LT(num(fast, "dp_exposed_s"), 0.1 * num(b, "dp_comm_s"));
  const auto sb = slow.at("breakdown");
  EXPECT_GT(num(sb, "dp_comm_s"), num(sb, "compute_s"));
  EXPECT_GE(num(sb, "step_time_s"), num(sb, "dp_comm_s"));
  EXPECT_DOUBLE_EQ(num(sb, "compute_s"), num(b, "compute_s"));
}

TEST(StepSimulation, RingAttentionHidesTheKeyValueExchangeThatTheAllGatherExposes)
{
  // CP 2 at 8K: the all-gather's K/V exchange blocks after every pass; the ring's one step per layer
  // hides behind the attention kernel on the local chunk, and its merge kernels (timed with the
  // kernel model: with one flat efficiency they are inside it) add compute.
  std::vector<std::string> sets = {"parallelism.cp=2", "parallelism.dp=4", batch_for(4, 16),
                                   "accelerator.gemm.max_efficiency=0.8", "accelerator.hbm_bandwidth=3.35TB/s"};
  const auto gather = simulate(load(kSmall, sets));
  sets.push_back("parallelism.cp_exchange=ring");
  const auto ring = simulate(load(kSmall, sets));
  const auto g = gather.at("breakdown");
  const auto r = ring.at("breakdown");
  EXPECT_GT(num(g, "cp_comm_s"), 0);
  EXPECT_DOUBLE_EQ(num(r, "cp_comm_s"), 0.0);
  EXPECT_GT(num(r, "compute_s"), num(g, "compute_s"));
  EXPECT_LT(num(r, "step_time_s"), num(g, "step_time_s"));
}

// ---- the decomposition ----------------------------------------------------------------------------

TEST(StepSimulation, DecompositionAddsUpAndComputeMatchesTheAnalyticModel)
{
  for (const std::vector<std::string>& sets :
       {std::vector<std::string>{},
        {"parallelism.virtual_stages=2", batch_for(8, 32)},
        {"parallelism.pp=8", "parallelism.dp=16", batch_for(16, 8), "network.pod_size=128",
         "network.pod_oversubscription=4"},
        {"parallelism.cp=2", "parallelism.dp=4", batch_for(4, 16)},
        {"model.experts=8", "model.expert_parameters=300e9", "parallelism.ep=4"},
        {"parallelism.cp=2", "parallelism.dp=4", batch_for(4, 16), "model.recompute=full"},
        {"model.experts=8", "model.expert_parameters=300e9", "parallelism.ep=4", "model.recompute=full"},
        {"parallelism.pp=8", "parallelism.dp=16", "parallelism.virtual_stages=2", batch_for(16, 8),
         "parallelism.gradients_after_flush=true"},
        {"parallelism.pp=4", "parallelism.dp=32", batch_for(32, 8), "parallelism.sharded_weights=true"},
        {"parallelism.cp=2", "parallelism.dp=4", batch_for(4, 16), "parallelism.cp_exchange=ring",
         "network.nic_bandwidth=1Gbps"},
        // TP 2 x CP 4: each context-parallel group inside one node, its exchange on NVLink.
        {"parallelism.tp=2", "parallelism.cp=4", "parallelism.dp=8", batch_for(8, 16)},
        {"parallelism.tp=2", "parallelism.cp=4", "parallelism.dp=8", batch_for(8, 16), "parallelism.cp_exchange=ring",
         "network.nvlink_bandwidth=2GB/s"},
        // Embedding chunks: the middle stages' 18 layers against the last stage's 9 and the logits.
        {"parallelism.pp=8", "parallelism.dp=16", "parallelism.virtual_stages=2", batch_for(16, 8),
         "parallelism.embedding_chunks=true", "accelerator.gemm.max_efficiency=0.8",
         "accelerator.hbm_bandwidth=3.35TB/s", "model.vocabulary=128000"},
        // ... and with one layer per chunk and a large vocabulary, the last stage's 7 and the logits.
        {"parallelism.virtual_stages=8", "parallelism.embedding_chunks=true", "accelerator.gemm.max_efficiency=0.8",
         "accelerator.hbm_bandwidth=3.35TB/s", "model.vocabulary=1000000"}}) {
    SCOPED_TRACE(::testing::PrintToString(sets));
    const auto s = load(kSmall, sets);
    const auto j = simulate(s);
    const auto b = sim::breakdown_from_json(j.at("breakdown"));
    EXPECT_EQ(b.model, "simulated");
    const models::StepBreakdown analytic = models::AnalyticStepModel().step(s.step);
    const double step = b.step_time.si();
    EXPECT_NEAR((b.compute + b.comm + b.sync - b.overlap).si(), step, 1e-9);
    EXPECT_NEAR((b.compute + b.comm_exposed + b.sync).si(), step, 1e-9);
    EXPECT_NEAR(b.comm.si(), (b.tp_comm + b.cp_comm + b.ep_comm + b.pp_comm + b.dp_comm).si(), 1e-12);
    EXPECT_NEAR(b.sync.si(), (b.bubble + b.barrier).si(), 1e-12);
    EXPECT_NEAR(b.comm_exposed.si(),
                b.tp_comm.si() + b.cp_comm.si() + b.ep_comm.si() + num(j, "pp_exposed_s") + num(j, "dp_exposed_s"),
                1e-9);
    // Context-parallel gathers see no contention here: they match the alpha-beta model exactly.
    EXPECT_NEAR(b.cp_comm.si(), analytic.cp_comm.si(), 1e-9 + 1e-6 * analytic.cp_comm.si());
    // So do the expert all-to-alls: one pod, each rank's NIC carries its (ep-1) messages.
    EXPECT_NEAR(b.ep_comm.si(), analytic.ep_comm.si(), 1e-9 + 1e-6 * analytic.ep_comm.si());
    const long gpus = s.fleet.gpus;
    const double mfu = b.flops_per_token * b.tokens_per_step / (gpus * s.step.accelerator.peak_flops.si() * step);
    EXPECT_NEAR(b.mfu, mfu, 1e-12 * mfu);
    EXPECT_NEAR(b.compute_fraction, b.compute.si() / step, 1e-12);
    EXPECT_EQ(b.binding_term, models::binding_term(b));

    EXPECT_NEAR(b.compute.si(), analytic.compute.si(), 1e-9 * analytic.compute.si());
    EXPECT_DOUBLE_EQ(b.flops_per_token, analytic.flops_per_token);
    EXPECT_DOUBLE_EQ(b.tokens_per_step, analytic.tokens_per_step);
    EXPECT_EQ(b.micro_batches, analytic.micro_batches);
    EXPECT_NEAR(b.barrier.si(), analytic.barrier.si(), 1e-15);
    // Exposed communication is what the traffic adds to the played schedule: never negative.
    EXPECT_GE(num(j, "pp_exposed_s"), -1e-9);
    EXPECT_GE(num(j, "dp_exposed_s"), -1e-9);
    // ... and never more than the dimension's communication time, so nothing overlaps negatively
    // (a pipeline's critical path can carry more transfers than one stage sends: pp_comm counts it).
    EXPECT_LE(num(j, "pp_exposed_s"), b.pp_comm.si() + 1e-12);
    EXPECT_LE(num(j, "dp_exposed_s"), b.dp_comm.si() + 1e-12);
    EXPECT_GE(b.overlap.si(), -1e-12);
  }
}

// ---- oversubscription -----------------------------------------------------------------------------

TEST(StepSimulation, PodOversubscriptionSlowsDataParallelRingsThreeAndAHalfFold)
{
  // 512 GPUs at TP 8 x PP 4 x DP 16, rank = tp + 8 (pp + 4 dp): a pipeline is 32 consecutive ranks
  // and the members of a DP group are 32 ranks apart. Pods of 64 GPUs hold replicas 2k and 2k+1.
  // In a DP ring step every rank sends to the same GPU of the next replica: replica 2k's 32 ranks
  // stay in the pod, replica 2k+1's 32 ranks send to the next pod. So 32 flows leave (and 32 enter)
  // every pod per ring step, over an uplink of pod_size x nic_bw / 7 = 64 beta / 7: max-min gives
  // each crossing flow 2 beta / 7 (its NIC would allow beta), the in-pod flows finish first, and a
  // ring step takes alpha + 3.5 S / beta instead of alpha + S / beta. PP sends and TP all-reduces
  // stay inside a pod (a node) and are not slowed.
  const std::vector<std::string> layout = {"cluster.gpus=512", "parallelism.pp=4", "parallelism.dp=16",
                                           batch_for(16, 4)};
  auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), layout.begin(), layout.end());
    return load(kSmall, extra);
  };
  const auto pods_s = with({"network.pod_size=64", "network.pod_oversubscription=7"});
  const auto one_s = with({"network.pod_size=0"});
  const auto pods = simulate(pods_s);
  const auto one = simulate(one_s);
  EXPECT_EQ(pods.at("pods").get<int>(), 8);
  EXPECT_EQ(one.at("pods").get<int>(), 1);

  // S: one GPU's shard of one chunk's gradient, P / (tp pp v) x 2 bytes over dp; dp - 1 ring steps.
  const double alpha = one_s.step.fabric.nic_latency.si();
  const double beta = one_s.step.fabric.nic_bandwidth.si();
  const double S = one_s.step.workload.parameters / (8.0 * 4) * one_s.step.workload.bytes_per_value / 16;
  const double uncontended = 15 * (alpha + S / beta);
  const double contended = 15 * (alpha + 3.5 * S / beta);
  EXPECT_NEAR(num(one, "dp_reduce_scatter_chunk_s"), uncontended, 1e-6 * uncontended);
  EXPECT_NEAR(num(pods, "dp_reduce_scatter_chunk_s"), contended, 1e-6 * contended);
  EXPECT_GE(num(pods, "dp_reduce_scatter_chunk_s"), 3 * num(one, "dp_reduce_scatter_chunk_s"));
  EXPECT_NEAR(num(pods, "tp_allreduce_s"), num(one, "tp_allreduce_s"), 1e-9);
  EXPECT_NEAR(num(pods, "pp_transfer_s"), num(one, "pp_transfer_s"), 1e-9);
  const auto bp = pods.at("breakdown");
  const auto bo = one.at("breakdown");
  EXPECT_GT(num(bp, "step_time_s"), num(bo, "step_time_s"));
  // In the played iteration the all-gathers run with every stage's flows at once, 3.5 times slower,
  // but the stages' reduce-scatters are staggered: one stage's 8 flows per pod fit its uplink, so
  // a reduce-scatter is slowed only while other stages' overlap it.
  EXPECT_GT(num(bp, "dp_comm_s"), 2 * num(bo, "dp_comm_s"));
  EXPECT_LT(num(bp, "dp_comm_s"), 3.5 * num(bo, "dp_comm_s"));
  EXPECT_NEAR(num(bp, "compute_s"), num(bo, "compute_s"), 1e-9 * num(bo, "compute_s"));
}

// ---- the cache ------------------------------------------------------------------------------------

TEST(StepSimulation, ResolveStepCachesTheSimulatedBreakdownByteForByte)
{
  std::string pattern = (fs::temp_directory_path() / "fleetsim_step_cache_XXXXXX").string();
  ASSERT_NE(mkdtemp(pattern.data()), nullptr);
  const fs::path dir = fs::path(pattern) / "cache";  // does not exist yet: resolve_step creates it
  const auto s = load(kSmall, {"parallelism.pp=8", "parallelism.dp=16", batch_for(16, 8)});

  const std::string text = in_child([&] {
    setenv("FLEETSIM_CACHE_DIR", dir.c_str(), 1);
    nlohmann::json j;
    j["dir"] = sim::step_cache_dir();
    const auto first = sim::resolve_step(s);
    j["first_from_cache"] = first.from_cache;
    j["first"] = sim::breakdown_to_json(first.breakdown).dump();
    const auto second = sim::resolve_step(s);
    j["second_from_cache"] = second.from_cache;
    j["second"] = sim::breakdown_to_json(second.breakdown).dump();
    // The analytic model never touches the cache.
    scenario::Scenario analytic = s;
    analytic.step_model = "analytic";
    const auto a = sim::resolve_step(analytic);
    j["analytic_from_cache"] = a.from_cache;
    j["analytic_model"] = a.breakdown.model;
    return j.dump();
  });
  ASSERT_FALSE(text.empty());
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["dir"].get<std::string>(), dir.string());
  EXPECT_FALSE(j["first_from_cache"].get<bool>());
  EXPECT_TRUE(j["second_from_cache"].get<bool>());
  EXPECT_EQ(j["first"].get<std::string>(), j["second"].get<std::string>());
  EXPECT_FALSE(j["analytic_from_cache"].get<bool>());
  EXPECT_EQ(j["analytic_model"].get<std::string>(), "analytic");
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++entries;
    EXPECT_EQ(e.path().extension(), ".json") << e.path();  // no temporary file left behind
  }
  EXPECT_EQ(entries, 1);

  // A fresh simulation (no cache) gives the same bytes as the cached entry.
  const std::string fresh = in_child([&] { return sim::breakdown_to_json(sim::simulate_step(s).breakdown).dump(); });
  EXPECT_EQ(fresh, j["first"].get<std::string>());

  std::error_code ec;
  fs::remove_all(pattern, ec);
}

TEST(StepSimulation, CacheKeyChangesWithFabricAndLayoutButNotWithRunSettings)
{
  const auto base = load(kSmall, {});
  const std::string key = sim::step_cache_key(base);
  EXPECT_NE(sim::step_cache_key(load(kSmall, {"network.nic_bandwidth=200Gbps"})), key);
  EXPECT_NE(sim::step_cache_key(load(kSmall, {"network.pod_size=128"})), key);
  EXPECT_NE(sim::step_cache_key(load(kSmall, {"network.pod_size=128", "network.pod_oversubscription=7"})),
            sim::step_cache_key(load(kSmall, {"network.pod_size=128"})));
  EXPECT_NE(sim::step_cache_key(load(kSmall, {"network.nvlink_bandwidth=900GB/s"})), key);
  EXPECT_NE(sim::step_cache_key(load(kSmall, {"accelerator.gemm_efficiency=0.5"})), key);
  EXPECT_NE(sim::step_cache_key(load(kSmall, {"parallelism.virtual_stages=2"})), key);
  EXPECT_NE(sim::step_cache_key(load(kSmall, {"cluster.gpus_per_rack=32"})), key);
  // Settings the iteration does not depend on share the entry.
  EXPECT_EQ(sim::step_cache_key(load(kSmall, {"run.duration=3d", "checkpoint.interval=1h", "run.seed=9"})), key);
  EXPECT_EQ(sim::step_cache_key(load(kSmall, {"network.nic_bandwidth=50GB/s"})), key);  // 400 Gbps, spelled in bytes
  // The key is derived from the declarations' bound fields: a field changed after loading changes it.
  auto changed = base;
  changed.step.fabric.tp_overlap += 0.25;
  EXPECT_NE(sim::step_cache_key(changed), key);
  // A derived input from another section: a GPU power limit slows the compute (power.dvfs_exponent).
  EXPECT_NE(sim::step_cache_key(load(kSmall, {"power.gpu_power_limit=461W"})), key);
  EXPECT_NE(key.find("network.tp_overlap="), std::string::npos) << key;
  EXPECT_EQ(key.find("run.duration"), std::string::npos) << key;
}

// ---- storage on the fabric ---------------------------------------------------------------------------

TEST(StepSimulation, CheckpointWriteIsLimitedByStorageOrByTheNicsWhicheverIsSlower)
{
  // 1,024 GPUs write 400 MB each (the default state_per_gpu). At 2 TB/s of storage the service limits
  // it: 409.6 GB / 2 TB/s = 204.8 ms. At 1,000 TB/s each GPU's 50 GB/s NIC does: 8 ms + 5 us.
  const auto slow = simulate(load(kSmall, {"storage.write_bandwidth=2TB/s"}));
  EXPECT_NEAR(num(slow, "checkpoint_write_s"), 5e-6 + 1024 * 400e6 / 2e12, 1e-6);
  const auto fast = simulate(load(kSmall, {"storage.write_bandwidth=1000TB/s"}));
  EXPECT_NEAR(num(fast, "checkpoint_write_s"), 5e-6 + 400e6 / 50e9, 1e-7);
}

TEST(StepSimulation, CheckpointTrafficSlowsTrainingTrafficOnlyWhereItSharesLinks)
{
  // While every GPU streams a checkpoint to a storage service faster than the NICs, each NIC's
  // outgoing bandwidth is split between the checkpoint and the DP ring (or PP send): both take
  // twice as long, and the step grows. At 2 TB/s for 1,024 writers each checkpoint flow gets
  // 1.953 GB/s, so the training flows keep 48.05 of their NIC's 50 GB/s.
  const auto fast = simulate(load(kSmall, {"storage.write_bandwidth=1000TB/s"}));
  const double dp = num(fast, "dp_reduce_scatter_chunk_s");
  const double transfer = num(fast, "pp_transfer_s");
  EXPECT_NEAR(num(fast, "contended_dp_s"), 7 * 5e-6 + 2 * (dp - 7 * 5e-6), 1e-3 * dp);
  EXPECT_NEAR(num(fast, "contended_transfer_s"), 5e-6 + 2 * (transfer - 5e-6), 1e-3 * transfer);
  const double step = fast.at("breakdown").at("step_time_s").get<double>();
  EXPECT_GT(num(fast, "step_time_during_checkpoint_s"), step);
  const auto slow = simulate(load(kSmall, {"storage.write_bandwidth=2TB/s"}));
  const double dp_slow = num(slow, "dp_reduce_scatter_chunk_s");
  EXPECT_NEAR(num(slow, "contended_dp_s"), 7 * 5e-6 + (dp_slow - 7 * 5e-6) * 50e9 / (50e9 - 2e12 / 1024),
              1e-4 * dp_slow);
}

TEST(StepSimulation, AFabricLimitedCheckpointSlowsTheReplaysWrites)
{
  // The replay's checkpoint stall delta = overhead + transfer; a simulated step also timed the
  // transfer over the fabric, and the replay uses it when the fabric, not the storage, limits it.
  const std::string out = in_child([&] {
    setenv("FLEETSIM_CACHE_DIR", "off", 1);
    auto s = load(kSmall, {"storage.write_bandwidth=1000TB/s", "checkpoint.write_overhead=0s", "run.duration=1h"});
    const sim::RunResult r = *sim::run(s, 1).job();
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", r.checkpoint_write_s);
    return std::string(buf);
  });
  ASSERT_FALSE(out.empty());
  EXPECT_NEAR(std::stod(out), 5e-6 + 400e6 / 50e9, 1e-7);  // not 409.6 GB / 1,000 TB/s = 0.4 ms
  // When the storage limits the write, the replay keeps bytes / write bandwidth exactly (the fabric
  // time adds only the route's microseconds of latency).
  const std::string storage_bound = in_child([&] {
    setenv("FLEETSIM_CACHE_DIR", "off", 1);
    auto s = load(kSmall, {"storage.write_bandwidth=2TB/s", "checkpoint.write_overhead=0s", "run.duration=1h"});
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", sim::run(s, 1).job()->checkpoint_write_s);
    return std::string(buf);
  });
  ASSERT_FALSE(storage_bound.empty());
  EXPECT_DOUBLE_EQ(std::stod(storage_bound), 1024 * 400e6 / 2e12);
}

}  // namespace
}  // namespace fleetsim::testing
