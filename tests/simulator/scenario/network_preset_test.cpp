// network.preset: a named fabric fills the keys a scenario leaves unset, never the ones it sets.
#include "simulator/scenario/scenario.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <gtest/gtest.h>

#include <string>

namespace fleetsim::scenario {
namespace {

const ResolvedValue* find(const LoadResult& r, const std::string& key)
{
  for (const auto& v : r.resolved)
    if (v.key == key)
      return &v;
  return nullptr;
}

TEST(NetworkPreset, Llama3FillsTheClusterFabricOfSection331)
{
  const LoadResult r = load_scenario_text("cluster: {gpus: 16384}\nnetwork: {preset: llama3}\n", "t.yaml", {});
  ASSERT_TRUE(r.scenario) << r.diagnostics.to_string();
  const Scenario& s = *r.scenario;
  EXPECT_EQ(s.fabric.pod_size, 3072);
  EXPECT_DOUBLE_EQ(s.fabric.pod_oversubscription, 7);
  EXPECT_DOUBLE_EQ(s.fabric.rack_oversubscription, 1);
  EXPECT_EQ(s.fleet.gpus_per_node, 8);
  EXPECT_EQ(s.fleet.gpus_per_rack, 16);
  EXPECT_DOUBLE_EQ(s.step.fabric.nic_bandwidth.si(), 50e9);
  EXPECT_DOUBLE_EQ(s.step.fabric.nvlink_bandwidth.si(), 450e9);
  // The preset's values are still defaults (for error locations), labelled with the preset.
  const ResolvedValue* pod = find(r, "network.pod_size");
  ASSERT_NE(pod, nullptr);
  EXPECT_TRUE(pod->is_default);
  EXPECT_NE(dump_resolved(r.resolved).find("pod_size: 3072  # preset llama3"), std::string::npos);
}

TEST(NetworkPreset, ValuesTheScenarioOrTheCommandLineGivesWin)
{
  // The scenario's pod size wins (the preset still sets the 1:7 between pods) ...
  const LoadResult r = load_scenario_text("cluster: {gpus: 16384}\nnetwork: {preset: llama3, pod_size: 1536}\n",
                                          "t.yaml", {});
  ASSERT_TRUE(r.scenario) << r.diagnostics.to_string();
  EXPECT_EQ(r.scenario->fabric.pod_size, 1536);
  EXPECT_DOUBLE_EQ(r.scenario->fabric.pod_oversubscription, 7);
  // ... and so does the command line's oversubscription (the preset still sets the pods).
  const LoadResult set = load_scenario_text("cluster: {gpus: 16384}\nnetwork: {preset: llama3}\n", "t.yaml",
                                            {"network.pod_oversubscription=3"});
  ASSERT_TRUE(set.scenario) << set.diagnostics.to_string();
  EXPECT_EQ(set.scenario->fabric.pod_size, 3072);
  EXPECT_DOUBLE_EQ(set.scenario->fabric.pod_oversubscription, 3);
  // A preset whose every value the scenario overrides is not used: refused, as any unused key.
  const LoadResult all = load_scenario_text("cluster: {gpus: 16384}\nnetwork: {preset: llama3, pod_size: 1536}\n",
                                            "t.yaml", {"network.pod_oversubscription=3"});
  ASSERT_FALSE(all.scenario);
  EXPECT_NE(all.diagnostics.to_string().find("'network.preset' is not used"), std::string::npos)
      << all.diagnostics.to_string();
  const LoadResult none = load_scenario_text("cluster: {gpus: 16384}\n", "t.yaml", {});
  ASSERT_TRUE(none.scenario);
  EXPECT_EQ(none.scenario->fabric.pod_size, 0);  // without a preset: one pod
  const LoadResult bad = load_scenario_text("network: {preset: dgx}\n", "t.yaml", {});
  EXPECT_FALSE(bad.scenario);
}

}  // namespace
}  // namespace fleetsim::scenario
