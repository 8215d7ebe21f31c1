// The accounting invariants hold in every build: a Release binary whose run breaks one (forced by
// the test-only FLEETSIM_TEST_FAULT hook of simulator/run/simulation.cpp) stops with an internal
// error naming the invariant, the scenario and the seed, exit code 3, and leaves no output behind.
#include "fleetsim_process.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace {

using fleetsim::testing::run_command;
using fleetsim::testing::TempDir;

const std::string kScenario = std::string(FLEETSIM_SOURCE_DIR) + "/scenarios/no_failures.yaml";

fleetsim::testing::ProcessOutput run_with_fault(const std::string& fault, const std::string& args)
{
  return run_command("FLEETSIM_TEST_FAULT=" + fault + " " + std::string(FLEETSIM_BINARY) + " " + args + " 2>&1");
}

TEST(CliInvariants, AccountingThatDoesNotTileTheWindowStopsTheRunWithExitCode3)
{
  TempDir dir;
  const auto r = run_with_fault("drop_segment", "run " + kScenario + " --seed 5 --out " + (dir / "out"));
  EXPECT_EQ(r.code, 3) << r.text;
  EXPECT_NE(r.text.find("internal error: invariant 'phases tile the window' violated"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("scenario no_failures, seed 5"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("this is a bug in fleetsim"), std::string::npos) << r.text;
  EXPECT_FALSE(std::filesystem::exists(dir / "out")) << "no output may be left behind";
}

TEST(CliInvariants, AnActorOpeningASecondPhaseStopsTheRunWithExitCode3)
{
  TempDir dir;
  const auto r = run_with_fault("open_phase", "run " + kScenario + " --out " + (dir / "out"));
  EXPECT_EQ(r.code, 3) << r.text;
  EXPECT_NE(r.text.find("invariant 'one phase at a time' violated"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("while training is open"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("Uncaught exception"), std::string::npos) << "SimGrid must not see the exception:\n" << r.text;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

TEST(CliInvariants, AFailedInternalCheckOnAnActorsStackExitsWithCode3AndLeavesNoOutput)
{
  // NodePool::repaired() on a node that is not in repair: a FLEETSIM_CHECK (models/core/check.hpp), on
  // in the Release build this binary is, failing inside a SimGrid actor.
  TempDir dir;
  const auto r = run_with_fault("repair_up_node", "run " + kScenario + " --seed 5 --out " + (dir / "out"));
  EXPECT_EQ(r.code, 3) << r.text;
  EXPECT_NE(r.text.find("fleetsim: internal error: models/resilience/node_pool.cpp:"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find(": check 'n.state == NodeState::Repair' failed: only a node in repair comes back from repair"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("this is a bug in fleetsim"), std::string::npos) << r.text;
  EXPECT_FALSE(std::filesystem::exists(dir / "out")) << "no output may be left behind";
}

TEST(CliInvariants, WithoutTheHookTheSameRunSucceeds)
{
  TempDir dir;
  const auto r = run_with_fault("", "run " + kScenario + " --seed 5 --quiet --out " + (dir / "out"));
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_TRUE(std::filesystem::exists(dir / "out/summary.json"));
}

TEST(CliInvariants, ASweepReplicaThatBreaksAnInvariantFailsTheSweep)
{
  TempDir dir;
  const std::string sweep = dir.write("s.yaml",
                                      "base: " + kScenario + "\nreplicas: 2\nvary:\n  checkpoint.interval: [30min]\n");
  const auto r = run_with_fault("drop_segment", "sweep " + sweep + " --quiet --out " + (dir / "out"));
  EXPECT_EQ(r.code, 3) << r.text;
  EXPECT_NE(r.text.find("broke an invariant (a bug in fleetsim)"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("invariant 'phases tile the window' violated"), std::string::npos) << r.text;
  EXPECT_FALSE(std::filesystem::exists(dir / "out/results.csv"));
}

TEST(CliInvariants, ACompareRunThatBreaksAnInvariantExitsWith3)
{
  TempDir dir;
  const auto r = run_with_fault(
      "drop_segment",
      "compare " + kScenario + " --vary checkpoint.interval=20min,40min --quiet --out " + (dir / "out"));
  EXPECT_EQ(r.code, 3) << r.text;
  EXPECT_FALSE(std::filesystem::exists(dir / "out/compare.csv"));
}

}  // namespace

TEST(CliInvariants, AFleetLedgerThatDoesNotCloseStopsTheRunWithExitCode3)
{
  TempDir dir;
  const std::string scenario = std::string(FLEETSIM_SOURCE_DIR) + "/tests/data/fleet/book_gang.yaml";
  const auto r = run_with_fault("fleet_ledger", "run " + scenario + " --out " + (dir / "out"));
  EXPECT_EQ(r.code, 3) << r.text;
  EXPECT_NE(r.text.find("invariant 'GPU time: allocated = productive + lost by cause' violated"), std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("scenario book_gang, seed 1"), std::string::npos) << r.text;
  EXPECT_FALSE(std::filesystem::exists(dir / "out")) << "no output may be left behind";
}
