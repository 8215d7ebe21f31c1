// Which runs a key reaches (ParamSpec::applies): a key the scenario's kind of run does not read is
// refused at the key, and the keys of the torus need the torus. tests/python/key_walk.py walks
// every key; these are the loader's rules, quick and under the sanitizers.
#include "simulator/scenario/parameter_table.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <gtest/gtest.h>

#include <string>

namespace fleetsim::scenario {
namespace {

LoadResult load(std::string_view yaml, std::vector<std::string> sets = {})
{
  return load_scenario_text(yaml, "test.yaml", sets);
}

constexpr const char* kJob =
    "name: t\ncluster: {gpus: 64}\nparallelism: {tp: 8, pp: 1, dp: 8}\nrun: {step_model: analytic}\n";
constexpr const char* kFleet =
    "name: f\ncluster: {gpus: 64}\nparallelism: {tp: 8, pp: 1, dp: 4}\n"
    "run: {step_model: analytic}\nworkload:\n  jobs:\n    a: {tokens: 1e9}\n";  // by tokens: the step runs

TEST(Applies, AFleetRefusesAReplayOnlyKeyAtThatKeyNamingIt)
{
  // Formerly a slowdown key was refused under the name of the first straggler key.
  const auto r = load(std::string(kFleet) + "stragglers: {diurnal_amplitude: 0.01}\n");
  ASSERT_EQ(r.diagnostics.items().size(), 1U) << r.diagnostics.to_string();
  const Diagnostic& d = r.diagnostics.items().front();
  EXPECT_EQ(d.where.line, 8);
  EXPECT_NE(d.message.find("'stragglers.diurnal_amplitude' applies to a single job's replay"), std::string::npos)
      << d.message;
  const auto set = load(kFleet, {"recovery.policy=hot_spare"});
  ASSERT_EQ(set.diagnostics.items().size(), 1U) << set.diagnostics.to_string();
  EXPECT_NE(set.diagnostics.items().front().message.find("--set recovery.policy: 'recovery.policy' applies to a "
                                                         "single job's replay"),
            std::string::npos)
      << set.diagnostics.to_string();
}

TEST(Applies, ASingleJobRefusesAFleetOnlyKeyAndReadsEveryOther)
{
  const auto r = load(std::string(kJob) + "scheduler: {policy: fifo}\n");
  ASSERT_EQ(r.diagnostics.items().size(), 1U) << r.diagnostics.to_string();
  EXPECT_NE(r.diagnostics.items().front().message.find("'scheduler.policy' applies to a fleet"), std::string::npos);
  EXPECT_TRUE(load(std::string(kJob) + "stragglers: {diurnal_amplitude: 0.01}\n").scenario);
}

TEST(Applies, EveryKeyDeclaresWhichRunsItReaches)
{
  long job = 0, fleet = 0;
  for (const ParamSpec& p : parameter_table()) {
    job += p.applies == Applies::Job;
    fleet += p.applies == Applies::Fleet;
    if (p.key.rfind("workload.", 0) == 0 || p.key.rfind("scheduler.", 0) == 0) {
      EXPECT_EQ(p.applies, Applies::Fleet) << p.key;
    }
    if (p.key.rfind("stragglers.", 0) == 0 || p.key.rfind("planned.", 0) == 0) {
      EXPECT_EQ(p.applies, Applies::Job) << p.key;
    }
  }
  EXPECT_GT(job, 40);
  EXPECT_GT(fleet, 40);
  EXPECT_EQ(applies_name(Applies::Both), "both");
}

TEST(Applies, TheTorusKeysNeedTheTorusAndAFleetsTorusIsTheLayouts)
{
  const auto clos = load(std::string(kJob) + "network: {torus_dims: 4x4x4}\n");
  ASSERT_EQ(clos.diagnostics.items().size(), 1U) << clos.diagnostics.to_string();
  // Declared as read under the torus only (ParamSpec::read_when): refused, naming the choice.
  EXPECT_NE(clos.diagnostics.items().front().message.find(
                "'network.torus_dims' is not used: network.topology is clos, its default; it is read when "
                "network.topology is torus"),
            std::string::npos)
      << clos.diagnostics.to_string();
  EXPECT_TRUE(load(std::string(kJob) + "network: {topology: torus, torus_dims: 4x4x4}\n").scenario);
  // A fleet's step runs on the layout's 32 GPUs, not the cluster's 64: its torus is the layout's.
  EXPECT_FALSE(load(std::string(kFleet) + "network: {topology: torus, torus_dims: 4x4x4}\n").scenario);
  EXPECT_TRUE(load(std::string(kFleet) + "network: {topology: torus, torus_dims: 2x4x4}\n").scenario);
}

TEST(Applies, ADumpedScenarioReloadsWithoutTheKeysItsKindDoesNotRead)
{
  for (const char* yaml : {kJob, kFleet}) {
    const auto r = load(yaml);
    ASSERT_TRUE(r.scenario) << r.diagnostics.to_string();
    const std::string dump = dump_resolved(r.resolved, &*r.scenario);
    EXPECT_EQ(dump.find(r.scenario->is_fleet() ? "stragglers:" : "scheduler:"), std::string::npos) << dump;
    // The keys this run does not read are comments (given, they would be refused).
    EXPECT_NE(dump.find("# torus_dims: \"\"  # default, not read by this run"), std::string::npos) << dump;
    const auto again = load(dump);
    EXPECT_TRUE(again.scenario) << again.diagnostics.to_string();
  }
}

}  // namespace
}  // namespace fleetsim::scenario

namespace fleetsim::scenario {
namespace {

// A struct's own default for a field a declaration binds (ParamSpec::into) is never read by the
// loader, which overwrites it; code that builds a Scenario by hand (tests, tools) does read it.
// Each must be the declared default, so that the two ways agree -- but for the step's inputs
// (models::StepInputs and the cluster's shape, models::FleetShape), whose neutral defaults (one
// GPU, no model) the step model's own tests build on: a Scenario built by hand takes them from
// the loader (load_scenario_text with the keys it needs).
bool is_step_input(const std::string& key)
{
  for (const char* prefix :
       {"cluster.", "model.", "parallelism.", "accelerator.peak_flops", "accelerator.memory", "accelerator.gemm",
        "accelerator.hbm_bandwidth", "network.nvlink_", "network.nic_", "network.dp_overlap", "network.tp_overlap"})
    if (key.rfind(prefix, 0) == 0)
      return true;
  return false;
}

TEST(Bindings, EveryBoundFieldsStructDefaultIsTheDeclaredDefault)
{
  const auto loaded = load_scenario_text("name: unnamed\n", "defaults.yaml", {});
  ASSERT_TRUE(loaded.scenario) << loaded.diagnostics.to_string();
  const Scenario fresh;
  long bound = 0;
  for (const ParamSpec& p : parameter_table()) {
    if (!p.binding.show || is_step_input(p.key))
      continue;
    ++bound;
    EXPECT_EQ(p.binding.show(fresh), p.binding.show(*loaded.scenario))
        << p.key << ": the struct's default is not the declared default (" << p.default_value.value_or("none") << ")";
  }
  EXPECT_GT(bound, 50);
}

}  // namespace
}  // namespace fleetsim::scenario
