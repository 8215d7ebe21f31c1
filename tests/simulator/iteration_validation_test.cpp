// The reduced step simulation (simulator/run/step_simulation.cpp: each traffic pattern timed once,
// then one pipeline's schedule played with those times) against the full flow-by-flow simulation
// of the whole iteration (simulator/run/full_iteration.cpp: every GPU of every pipeline and replica,
// every TP, PP and DP flow, issued when the schedule issues it), on a fabric with oversubscribed
// rack and pod uplinks and a placement whose pipelines cross racks and whose DP groups cross racks
// and pods. Each layout checks that the two agree within 2 % of the full run, and that the full run
// had contention to get right: an uplink carried flows of different groups at once, and the same
// full run on a non-blocking fabric is faster. Every simulation runs in a forked child.
#include "run_in_child.hpp"

#include "simulator/run/full_iteration.hpp"
#include "simulator/run/step_simulation.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace fleetsim::testing {
namespace {

// A Llama-3-70B-shaped model on H100s (the parameter defaults' accelerator and NICs: 400 Gbps,
// 5 us). One node (8 GPUs) per rack, so every pipeline send leaves its rack, and racks at 1:4:
// a node's 8 NIC flows share 2 NICs' worth of uplink. Pods of 4 racks at 1:2 above them.
constexpr const char* kFabric = R"(name: iteration_validation
cluster: {gpus: 64, gpus_per_rack: 8}
parallelism: {tp: 8, pp: 2, dp: 4, virtual_stages: 1}
model: {parameters: 70e9, layers: 80, hidden: 8192, attention_heads: 64, kv_heads: 8,
        global_batch_tokens: 262144}
network: {rack_oversubscription: 4, pod_size: 32, pod_oversubscription: 2}
run: {step_model: simulated}
)";

const std::vector<std::string> kNonBlocking = {"network.rack_oversubscription=1", "network.pod_size=0"};

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

void check(const Layout& l)
{
  const auto s = load(l.sets());
  const auto red = reduced(s);
  const auto ful = full(s);
  const auto free = full(load(l.sets(), kNonBlocking));
  const double t_red = num(red, "step_time_s");
  const double t_full = num(ful, "step_time_s");
  const double error = (t_red - t_full) / t_full;
  std::printf(
      "[ layout ] tp %d pp %d dp %d v %d m %d (%d GPUs): reduced %.6f s, full %.6f s, error %+.3f %%; "
      "full non-blocking %.6f s; full wall %.1f s, %ld flows\n",
      l.tp, l.pp, l.dp, l.v, l.m, l.tp * l.pp * l.dp, t_red, t_full, 100 * error, num(free, "step_time_s"),
      num(ful, "wall_time_s"), ful.at("comms").get<long>());
  std::printf("[ reduced] pp transfer %.6f s, dp chunk %.6f s, pp exposed %.6f s, dp exposed %.6f s\n",
              num(red, "pp_transfer_s"), num(red, "dp_chunk_s"), num(red, "pp_exposed_s"), num(red, "dp_exposed_s"));
  std::printf(
      "[ links  ] %s; %d of %d uplink directions shared by groups at once, %d mixed PP and DP; "
      "busiest NIC: %d groups, %.6f s mixed\n",
      ful.at("busiest_uplink").dump().c_str(), ful.at("shared_uplinks").get<int>(), ful.at("uplinks").get<int>(),
      ful.at("mixed_uplinks").get<int>(), ful.at("nic_max_groups").get<int>(), num(ful, "nic_mixed_s"));
  EXPECT_LE(std::abs(error), 0.02);
  // Contention is present in the full run: an oversubscribed uplink carried flows of several groups
  // (pipelines, DP groups) at the same time, and the fabric's oversubscription costs time.
  EXPECT_GE(ful.at("busiest_uplink").at("max_groups").get<int>(), 2);
  EXPECT_GT(ful.at("shared_uplinks").get<int>(), 0);
  EXPECT_GT(t_full, num(free, "step_time_s") * 1.01);
}

TEST(IterationValidation, ReducedAgreesWithFullWithin2PercentAt64Gpus) { check({8, 2, 4, 1, 8}); }

TEST(IterationValidation, ReducedAgreesWithFullWithin2PercentAt256GpusInterleaved) { check({8, 4, 8, 2, 8}); }

TEST(IterationValidation, ReducedAgreesWithFullWithin2PercentAt1024Gpus) { check({8, 8, 16, 1, 16}); }

}  // namespace
}  // namespace fleetsim::testing
