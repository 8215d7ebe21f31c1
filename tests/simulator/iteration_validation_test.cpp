// The reduced step simulation (simulator/run/step_simulation.cpp: each traffic pattern timed once,
// then one pipeline's schedule played with those times and its stages' DP collectives streamed as
// every replica's flows) against the full flow-by-flow simulation of the whole iteration
// (simulator/run/full_iteration.cpp: every GPU of every pipeline and replica, every TP, PP and DP
// flow, issued when the schedule issues it), on fabrics with oversubscribed rack and pod uplinks
// and a placement whose pipelines cross racks and whose DP groups cross racks and pods.
//
// Each case checks that contention binds in the full run -- an uplink of a rack and one of a pod
// each carried flows of several groups at once, and the same full run on a non-blocking fabric is
// at least 5 % faster -- and that the reduced model agrees with the full run within 2 %, on the
// oversubscribed fabric and on the non-blocking one. Two fabrics: racks at 1:4 under pods of 32
// GPUs at 1:2, and racks at 1:2 under pods of 16 GPUs at 1:8, where the pod uplinks bind hardest
// and the stages' staggered reduce-scatters matter. Every simulation runs in a forked child.
#include "run_in_child.hpp"

#include "models/step/iteration_plan.hpp"

#include "simulator/run/full_iteration.hpp"
#include "simulator/run/step_simulation.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace fleetsim::testing {
namespace {

// A Llama-3-70B-shaped model on H100s (the parameter defaults' accelerator and NICs: 400 Gbps,
// 5 us). One node (8 GPUs) per rack, so every pipeline send leaves its rack. The fabric's uplinks
// come from a Fabric below.
constexpr const char* kFabric = R"(name: iteration_validation
cluster: {gpus: 64, gpus_per_rack: 8}
parallelism: {tp: 8, pp: 2, dp: 4, virtual_stages: 1}
model: {parameters: 70e9, layers: 80, hidden: 8192, attention_heads: 64, kv_heads: 8,
        global_batch_tokens: 262144}
network: {rack_oversubscription: 4, pod_size: 32, pod_oversubscription: 2}
run: {step_model: simulated}
)";

const std::vector<std::string> kNonBlocking = {"network.rack_oversubscription=1", "network.pod_size=0"};

// Racks at 1:4 (a node's 8 NIC flows share 2 NICs' worth of uplink), pods of 4 racks at 1:2.
const std::vector<std::string> kPods32At2 = {"network.rack_oversubscription=4", "network.pod_size=32",
                                             "network.pod_oversubscription=2"};
// Racks at 1:2, pods of 2 racks at 1:8: a pod's 16 NICs share 2 NICs' worth of uplink.
const std::vector<std::string> kPods16At8 = {"network.rack_oversubscription=2", "network.pod_size=16",
                                             "network.pod_oversubscription=8"};
constexpr int kGpusPerRack = 8;

struct Layout {
  int tp, pp, dp, v, m;
  [[nodiscard]] std::vector<std::string> sets() const
  {
    return {"cluster.gpus=" + std::to_string(tp * pp * dp),
            "parallelism.tp=" + std::to_string(tp),
            "parallelism.pp=" + std::to_string(pp),
            "parallelism.dp=" + std::to_string(dp),
            "parallelism.virtual_stages=" + std::to_string(v),
            "model.global_batch_tokens=" + std::to_string(8192L * dp * m)};
  }
};

scenario::Scenario load(std::vector<std::string> sets, const std::vector<std::string>& extra = {})
{
  sets.insert(sets.end(), extra.begin(), extra.end());
  auto r = scenario::load_scenario_text(kFabric, "iteration_validation.yaml", sets);
  if (!r.scenario)
    throw std::runtime_error(r.diagnostics.to_string());
  return *r.scenario;
}

nlohmann::json parse_child(const std::string& text)
{
  if (text.empty())
    throw std::runtime_error("the simulation child failed");
  return nlohmann::json::parse(text);
}

nlohmann::json reduced(const scenario::Scenario& s)
{
  return parse_child(in_child([&] {
    const sim::SimulatedStep r = sim::simulate_step(s, false);
    nlohmann::json j;
    j["step_time_s"] = r.breakdown.step_time.si();
    j["pp_transfer_s"] = r.pp_transfer_s;
    j["dp_chunk_s"] = r.dp_reduce_scatter_chunk_s;
    j["pp_exposed_s"] = r.pp_exposed_s;
    j["dp_exposed_s"] = r.dp_exposed_s;
    j["dp_streamed"] = r.dp_streamed;
    return j.dump();
  }));
}

nlohmann::json full(const scenario::Scenario& s)
{
  return parse_child(in_child([&] {
    const sim::FullIteration r = sim::simulate_full_iteration(s);
    nlohmann::json j;
    j["step_time_s"] = r.step_time_s;
    j["comms"] = r.comms;
    j["wall_time_s"] = r.wall_time_s;
    nlohmann::json best = {{"max_groups", 0}};
    int shared_uplinks = 0;
    int mixed_uplinks = 0;
    for (const auto& u : r.uplinks) {
      shared_uplinks += u.max_groups >= 2 ? 1 : 0;
      mixed_uplinks += u.mixed_s > 0 ? 1 : 0;
      if (u.max_groups > best["max_groups"].get<int>() ||
          (u.max_groups == best["max_groups"].get<int>() && u.mixed_s > best.value("mixed_s", 0.0)))
        best = {{"link", u.link},
                {"max_flows", u.max_flows},
                {"max_groups", u.max_groups},
                {"shared_s", u.shared_s},
                {"mixed_s", u.mixed_s}};
    }
    nlohmann::json groups = nlohmann::json::object();
    for (const auto& u : r.uplinks)
      groups[u.link] = u.max_groups;
    j["uplink_groups"] = groups;
    j["uplinks"] = r.uplinks.size();
    j["shared_uplinks"] = shared_uplinks;
    j["mixed_uplinks"] = mixed_uplinks;
    j["busiest_uplink"] = best;
    j["nic_max_groups"] = r.busiest_nic.max_groups;
    j["nic_mixed_s"] = r.busiest_nic.mixed_s;
    return j.dump();
  }));
}

double num(const nlohmann::json& j, const char* key) { return j.at(key).get<double>(); }

int pod_size(const std::vector<std::string>& fabric)
{
  for (const auto& set : fabric)
    if (set.rfind("network.pod_size=", 0) == 0)
      return std::stoi(set.substr(set.find('=') + 1));
  return 0;
}

// The placement crosses racks and pods: pipeline 0 spans several racks, and every DP group (the
// GPUs of one tensor index and stage in every replica) spans several racks and several pods.
void expect_placement_crosses_racks_and_pods(const scenario::Scenario& s, int pod)
{
  const auto& l = s.step.layout;
  auto distinct = [](std::vector<int> v) {
    std::sort(v.begin(), v.end());
    return std::unique(v.begin(), v.end()) - v.begin();
  };
  std::vector<int> pipeline_racks;
  for (int st = 0; st < l.pp; ++st)
    pipeline_racks.push_back(models::layout_rank(l, 0, st, 0) / kGpusPerRack);
  EXPECT_GE(distinct(pipeline_racks), 2);
  for (int st = 0; st < l.pp; ++st)
    for (int t = 0; t < l.tp; ++t) {
      std::vector<int> racks, pods;
      for (int d = 0; d < l.dp; ++d) {
        racks.push_back(models::layout_rank(l, t, st, d) / kGpusPerRack);
        pods.push_back(models::layout_rank(l, t, st, d) / pod);
      }
      EXPECT_GE(distinct(racks), 2);
      EXPECT_GE(distinct(pods), 2);
    }
}

// Most groups at once on any uplink whose name starts with `prefix` ("rack", "pod").
int max_groups_on(const nlohmann::json& full, const std::string& prefix)
{
  int most = 0;
  for (const auto& u : full.at("uplink_groups").items())
    if (u.key().rfind(prefix, 0) == 0)
      most = std::max(most, u.value().get<int>());
  return most;
}

void check(const Layout& l, const std::vector<std::string>& fabric, const std::vector<std::string>& model = {})
{
  std::vector<std::string> sets = l.sets();
  sets.insert(sets.end(), model.begin(), model.end());
  const auto s = load(sets, fabric);
  expect_placement_crosses_racks_and_pods(s, pod_size(fabric));
  const auto red = reduced(s);
  const auto ful = full(s);
  const auto free_s = load(sets, kNonBlocking);
  const auto free = full(free_s);
  const double t_red = num(red, "step_time_s");
  const double t_full = num(ful, "step_time_s");
  const double t_free_red = num(reduced(free_s), "step_time_s");
  const double t_free = num(free, "step_time_s");
  const double error = (t_red - t_full) / t_full;
  const double free_error = (t_free_red - t_free) / t_free;
  std::printf(
      "[ layout ] tp %d pp %d dp %d v %d m %d (%d GPUs), %s, %s, %s: reduced %.6f s, full %.6f s, error %+.3f %%; "
      "non-blocking: reduced %.6f s, full %.6f s (error %+.3f %%), contention +%.1f %%; full wall %.1f s, %ld flows\n",
      l.tp, l.pp, l.dp, l.v, l.m, l.tp * l.pp * l.dp, fabric[0].c_str(), fabric[1].c_str(), fabric[2].c_str(), t_red,
      t_full, 100 * error, t_free_red, t_free, 100 * free_error, 100 * (t_full / t_free - 1), num(ful, "wall_time_s"),
      ful.at("comms").get<long>());
  std::printf("[ reduced] pp transfer %.6f s, dp chunk %.6f s, pp exposed %.6f s, dp exposed %.6f s, DP %s\n",
              num(red, "pp_transfer_s"), num(red, "dp_chunk_s"), num(red, "pp_exposed_s"), num(red, "dp_exposed_s"),
              red.at("dp_streamed").get<bool>() ? "streamed (stages contend)" : "timed (stages do not contend)");
  std::printf(
      "[ links  ] %s; %d of %d uplink directions shared by groups at once, %d mixed PP and DP; "
      "busiest NIC: %d groups, %.6f s mixed\n",
      ful.at("busiest_uplink").dump().c_str(), ful.at("shared_uplinks").get<int>(), ful.at("uplinks").get<int>(),
      ful.at("mixed_uplinks").get<int>(), ful.at("nic_max_groups").get<int>(), num(ful, "nic_mixed_s"));
  // Contention is present in the full run: a rack uplink and a pod uplink each carried flows of
  // several groups (pipelines, DP groups) at the same time, and the oversubscription costs time.
  EXPECT_GE(max_groups_on(ful, "rack"), 2);
  EXPECT_GE(max_groups_on(ful, "pod"), 2);
  EXPECT_GE(t_full, 1.05 * t_free) << "the oversubscribed fabric does not bind";
  // The reduced model agrees with the full run, with and without the contention.
  EXPECT_LE(std::abs(error), 0.02);
  EXPECT_LE(std::abs(free_error), 0.02);
}

// 64 GPUs: 4 replicas of a 2-stage pipeline, 1F1B.
const Layout k64 = {8, 2, 4, 1, 8};
// 256 GPUs: 8 replicas of a 4-stage interleaved pipeline (v = 2).
const Layout k256 = {8, 4, 8, 2, 8};
// 1,024 GPUs: 16 replicas of an 8-stage pipeline, 1F1B.
const Layout k1024 = {8, 8, 16, 1, 16};

TEST(IterationValidation, ReducedAgreesWithFullWithin2PercentAt64GpusPodsAt1To2) { check(k64, kPods32At2); }

TEST(IterationValidation, ReducedAgreesWithFullWithin2PercentAt256GpusInterleavedPodsAt1To2)
{
  check(k256, kPods32At2);
}

TEST(IterationValidation, ReducedAgreesWithFullWithin2PercentAt1024GpusPodsAt1To2) { check(k1024, kPods32At2); }

TEST(IterationValidation, ReducedAgreesWithFullWithin2PercentAt64GpusPodsAt1To8) { check(k64, kPods16At8); }

TEST(IterationValidation, ReducedAgreesWithFullWithin2PercentAt256GpusInterleavedPodsAt1To8)
{
  check(k256, kPods16At8);
}

TEST(IterationValidation, ReducedAgreesWithFullWithin2PercentAt1024GpusPodsAt1To8) { check(k1024, kPods16At8); }

// Kernel times by shape and a 128,256-token vocabulary: the last stage's last chunk also runs the
// logit GEMM (models::pass_work), so the stages are unequal and the last one paces the pipeline.
TEST(IterationValidation, ReducedAgreesWithFullWithin2PercentWhenTheLastStageCarriesTheLogits)
{
  check(k256, kPods32At2,
        {"model.vocabulary=128256", "accelerator.gemm.max_efficiency=0.8", "accelerator.gemm.kernel_overhead=5.5us",
         "accelerator.hbm_bandwidth=3.35TB/s"});
}

// Llama 3's pipeline: the first chunk holds only the embedding and the last only the logits, so both
// schedules skip those chunks' layers and TP all-reduces (ParallelLayout::embedding_chunks).
TEST(IterationValidation, ReducedAgreesWithFullWithin2PercentWithEmbeddingChunks)
{
  check(k256, kPods32At2,
        {"parallelism.embedding_chunks=true", "model.vocabulary=128256", "accelerator.gemm.max_efficiency=0.8",
         "accelerator.gemm.kernel_overhead=5.5us", "accelerator.hbm_bandwidth=3.35TB/s"});
}

// Full recomputation (each backward re-runs its forward's TP all-reduces: 3 forwards' worth of ring
// traffic per micro-batch) and Megatron's local DDP (every chunk's reduce-scatter after the flush).
TEST(IterationValidation, ReducedAgreesWithFullWithin2PercentWithFullRecomputationAndGradientsAfterTheFlush)
{
  check(k256, kPods32At2, {"model.recompute=full", "parallelism.gradients_after_flush=true"});
}

// Sequence parallelism with selective recomputation, as Korthikanti et al.'s 530B run: the backward
// gathers the column-parallel linears' inputs again (5 all-reduces' worth per layer and micro-batch).
// Sharded gradients (ZeRO-2, FSDP) are reduce-scattered in their own precision: FP32 gradients
// (model.gradient_bytes 4, as Llama 3 reduces them) move twice the bytes of a BF16 all-gather, in
// both the played pipeline's streamed DP flows and the flow-by-flow iteration (a reduce-scatter that
// moved the all-gather's bytes left model.gradient_bytes unread in the streamed step).
TEST(IterationValidation, ReducedAgreesWithFullWithin2PercentWithShardedGradientsInFp32)
{
  const std::vector<std::string> fp32 = {"parallelism.sharded_gradients=true", "model.gradient_bytes=4"};
  check(k256, kPods16At8, fp32);
  // Against the same layout with unsharded gradients, reduced in the values' BF16 (an FP32 reduce-
  // scatter of BF16 gradients beside a BF16 shard is refused as unread: it would change nothing).
  std::vector<std::string> sets = k256.sets();
  const auto narrow = reduced(load(sets, kPods16At8));
  sets.insert(sets.end(), fp32.begin(), fp32.end());
  const auto wide = reduced(load(sets, kPods16At8));
  ASSERT_TRUE(wide.at("dp_streamed").get<bool>()) << "the case is meant to stream its DP traffic";
  EXPECT_GT(num(wide, "dp_exposed_s"), num(narrow, "dp_exposed_s"));
  EXPECT_GT(num(wide, "step_time_s"), num(narrow, "step_time_s"));
}

TEST(IterationValidation, ReducedAgreesWithFullWithin2PercentWithSequenceParallelism)
{
  check(k256, kPods32At2, {"model.recompute=selective", "parallelism.sequence_parallel=true"});
}

}  // namespace
}  // namespace fleetsim::testing
