// Every key a scenario gives is read by its run or refused (simulator/scenario/key_usage.hpp, issue
// 42): a key's declaration says under which choices it is read; given where they do not hold, it is
// refused naming the choice and the value that would use it, except where it is listed instead (a key
// from an included file, a --set choice that leaves one of the file's keys unread, a compare's point).
#include "simulator/scenario/key_usage.hpp"
#include "simulator/scenario/parameter_table.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace fleetsim::scenario {
namespace {

// A small single job with one node-scope cause (so that the recovery keys are read).
constexpr const char* kJob =
    "name: t\ncluster: {gpus: 64}\nparallelism: {tp: 8, pp: 1, dp: 8}\nrun: {step_model: analytic}\n"
    "failures: {causes: {node: {mtbf: 100d, scope: node}}}\n";

LoadResult load(const std::string& yaml, const std::vector<std::string>& sets = {},
                UnusedKeys unused = UnusedKeys::Refuse)
{
  return load_scenario_text(yaml, "t.yaml", sets, unused);
}

TEST(KeyUsage, AKeyAnotherChoiceLeavesUnreadIsRefusedAtItsLineNamingTheChoiceAndWhatWouldUseIt)
{
  const LoadResult r = load(std::string(kJob) + "recovery: {spare_swap: 30min}\n");
  ASSERT_FALSE(r.scenario);
  ASSERT_EQ(r.diagnostics.items().size(), 1u) << r.diagnostics.to_string();
  const Diagnostic& d = r.diagnostics.items().front();
  EXPECT_EQ(d.where.line, 6);
  EXPECT_EQ(d.message,
            "'recovery.spare_swap' is not used: recovery.policy is restart, its default; it is read when "
            "recovery.policy is hot_spare and a failure cause or a planned interruption can stop the job");
  // Under the choice that reads it, it loads.
  EXPECT_TRUE(load(std::string(kJob) + "recovery: {spare_swap: 30min, policy: hot_spare}\n").scenario);
}

TEST(KeyUsage, EveryAlternativeIsNamedAndTheFirstChoiceThatFailsInEach)
{
  // The rack uplinks are read by the simulated step, or by a fleet's shared fabric.
  const LoadResult r = load(std::string(kJob) + "network: {rack_oversubscription: 4}\n");
  ASSERT_EQ(r.diagnostics.items().size(), 1u) << r.diagnostics.to_string();
  EXPECT_NE(r.diagnostics.items().front().message.find(
                "run.step_model is analytic and network.fleet_fabric is isolated, its default; it is read when "
                "run.step_model is simulated and the step model runs"),
            std::string::npos)
      << r.diagnostics.to_string();
}

TEST(KeyUsage, AComputedPolicySaysItOverridesTheIntervalAndTheSummaryListsNothingElse)
{
  const LoadResult r = load(std::string(kJob) + "checkpoint: {policy: young, interval: 5h}\n");
  ASSERT_FALSE(r.scenario);
  EXPECT_NE(r.diagnostics.to_string().find("'checkpoint.interval' is not used: checkpoint.policy is young (the "
                                           "policy computes the interval); it is read when checkpoint.policy is fixed"),
            std::string::npos)
      << r.diagnostics.to_string();
  const LoadResult fixed = load(std::string(kJob) + "checkpoint: {interval: 5h}\n");
  ASSERT_TRUE(fixed.scenario) << fixed.diagnostics.to_string();
  EXPECT_TRUE(fixed.scenario->unused_keys.empty());
}

TEST(KeyUsage, ACausesDetectedByIsUnusedBesideItsOwnDetection)
{
  const LoadResult r =
      load(std::string(kJob) + "failures: {causes: {link: {mtbf: 100d, scope: link, detected_by: watchdog, "
                               "detection: 90s}}}\n");
  ASSERT_FALSE(r.scenario);
  EXPECT_NE(r.diagnostics.to_string().find("'failures.causes.link.detected_by' is not used: "
                                           "failures.causes.link.detection is given (the cause's own detection "
                                           "wins)"),
            std::string::npos)
      << r.diagnostics.to_string();
}

TEST(KeyUsage, AKeyOfTheFileThatACommandLineChoiceLeavesUnreadIsListedNotRefused)
{
  // The file gives hot_spare's swap time; --set chooses restart: a one-point compare.
  const std::string yaml = std::string(kJob) + "recovery: {spare_swap: 30min, policy: hot_spare}\n";
  const LoadResult r = load(yaml, {"recovery.policy=restart"});
  ASSERT_TRUE(r.scenario) << r.diagnostics.to_string();
  ASSERT_EQ(r.scenario->unused_keys.size(), 1u);
  EXPECT_EQ(r.scenario->unused_keys[0].key, "recovery.spare_swap");
  EXPECT_TRUE(r.scenario->unused_keys[0].by_override);
  EXPECT_EQ(r.scenario->unused_keys[0].where, "t.yaml:6");
  // A key --set gives that its choices leave unread is still refused.
  const LoadResult set = load(kJob, {"recovery.spare_swap=30min"});
  ASSERT_FALSE(set.scenario);
  EXPECT_NE(set.diagnostics.to_string().find("--set recovery.spare_swap: 'recovery.spare_swap' is not used"),
            std::string::npos)
      << set.diagnostics.to_string();
}

TEST(KeyUsage, ALayoutSetOnTheCommandLineLeavesTheFilesGradientKeysListedNotRefused)
{
  // FP32 gradients, sharded: read while there are replicas to reduce over. --set dp=1 (a sweep's
  // point) leaves them unread; the file that gives them is not wrong for it.
  const std::string yaml =
      "name: t\ncluster: {gpus: 64}\nparallelism: {tp: 8, pp: 1, dp: 8, sharded_gradients: "
      "true}\nrun: {step_model: analytic}\nmodel: {gradient_bytes: 4}\n";
  ASSERT_TRUE(load(yaml).scenario);
  const LoadResult one = load(yaml, {"parallelism.dp=1", "cluster.gpus=8"});
  ASSERT_TRUE(one.scenario) << one.diagnostics.to_string();
  ASSERT_EQ(one.scenario->unused_keys.size(), 2u);
  for (const UnusedKey& u : one.scenario->unused_keys) {
    EXPECT_TRUE(u.by_override) << u.key;
    EXPECT_NE(u.reason.find("parallelism.dp x parallelism.cp is 1"), std::string::npos) << u.reason;
  }
  // The same layout in the file: its gradient keys are refused.
  const std::string single =
      "name: t\ncluster: {gpus: 8}\nparallelism: {tp: 8, pp: 1, dp: 1, sharded_gradients: "
      "true}\nrun: {step_model: analytic}\nmodel: {gradient_bytes: 4}\n";
  EXPECT_FALSE(load(single).scenario);
}

TEST(KeyUsage, AnIncludedFilesKeysAreListedAndACompareListsTheScenariosOwn)
{
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "fleetsim_key_usage_test";
  fs::create_directories(dir);
  std::ofstream(dir / "machine.yaml") << "network: {dp_overlap: 0.5, rack_oversubscription: 2}\n";
  std::ofstream(dir / "job.yaml") << "include: machine.yaml\n" << kJob << "recovery: {spare_swap: 30min}\n";
  const LoadResult run = load_scenario_file((dir / "job.yaml").string());
  const LoadResult listed = load_scenario_file((dir / "job.yaml").string(), {}, UnusedKeys::List);
  fs::remove_all(dir);
  // run: the scenario's own unused key is refused, the machine's are not.
  ASSERT_FALSE(run.scenario);
  ASSERT_EQ(run.diagnostics.items().size(), 1u) << run.diagnostics.to_string();
  EXPECT_NE(run.diagnostics.items().front().message.find("recovery.spare_swap"), std::string::npos);
  // A compare's point: every one is listed, the included one as such.
  ASSERT_TRUE(listed.scenario) << listed.diagnostics.to_string();
  ASSERT_EQ(listed.scenario->unused_keys.size(), 2u);
  EXPECT_EQ(listed.scenario->unused_keys[0].key, "network.rack_oversubscription");
  EXPECT_TRUE(listed.scenario->unused_keys[0].included);
  EXPECT_EQ(listed.scenario->unused_keys[1].key, "recovery.spare_swap");
  EXPECT_FALSE(listed.scenario->unused_keys[1].included);
  // (network.dp_overlap is read: the analytic step hides DP traffic by it.)
}

TEST(KeyUsage, AFactDecidesWhatNoOneKeyDoes)
{
  // No cause hangs the job: the watchdog's timeout is not read; a link cause's default detection is
  // the watchdog, which reads it.
  EXPECT_FALSE(load(std::string(kJob) + "recovery: {watchdog_timeout: 7min}\n").scenario);
  EXPECT_TRUE(load(std::string(kJob) +
                   "recovery: {watchdog_timeout: 7min}\nfailures: {causes: {link: {mtbf: 100d, scope: link}}}\n")
                  .scenario);
  // A fleet without a job declared by tokens runs no step model: its model keys are not read.
  const std::string fleet =
      "name: f\ncluster: {gpus: 64}\nworkload:\n  jobs:\n    a: {gpus: 8, work: 1h}\nmodel: {layers: 32}\n";
  const LoadResult r = load(fleet);
  ASSERT_FALSE(r.scenario);
  EXPECT_NE(r.diagnostics.to_string().find("'model.layers' is not used: no job of this fleet is declared by "
                                           "tokens or replayed, so the step model does not run"),
            std::string::npos)
      << r.diagnostics.to_string();
}

TEST(KeyUsage, TheDumpCommentsOutTheKeysTheRunDoesNotReadAndReloads)
{
  const LoadResult r = load(kJob);
  ASSERT_TRUE(r.scenario) << r.diagnostics.to_string();
  const std::string dump = dump_resolved(r.resolved, &*r.scenario);
  EXPECT_NE(dump.find("  # spare_swap: 2min  # default, not read by this run\n"), std::string::npos) << dump;
  EXPECT_NE(dump.find("  restart: 10min  # default\n"), std::string::npos) << dump;
  const LoadResult again = load(dump);
  EXPECT_TRUE(again.scenario) << again.diagnostics.to_string();
}

TEST(KeyUsage, TheDeclarationsSayWhenInWords)
{
  const ParamSpec* swap = find_param("recovery.spare_swap");
  ASSERT_NE(swap, nullptr);
  EXPECT_EQ(read_when_description(*swap),
            "recovery.policy is hot_spare and a failure cause or a planned interruption can stop the job");
  const ParamSpec* rack = find_param("network.rack_oversubscription");
  ASSERT_NE(rack, nullptr);
  EXPECT_NE(read_when_description(*rack).find("; or network.fleet_fabric is shared"), std::string::npos);
  EXPECT_EQ(read_when_description(*find_param("cluster.gpus")), "");  // always read
  // key_is_read: the same conditions, for a concrete key of a <name> section.
  const LoadResult r = load(kJob);
  ASSERT_TRUE(r.scenario);
  const std::string none;
  EXPECT_TRUE(key_is_read("failures.causes.node.repair", FactInput{*r.scenario, r.resolved, none}));
  EXPECT_FALSE(key_is_read("recovery.spare_swap", FactInput{*r.scenario, r.resolved, none}));
}

}  // namespace
}  // namespace fleetsim::scenario
