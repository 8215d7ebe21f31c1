// The replay's energy invariant (models/energy/energy_check.hpp): an account matches the check's
// own computation from the inputs, and every term broken in turn (a wrong input, a wrong row, a
// wrong total, a GPU in no state) makes the check throw, naming the term. Each broken case is
// checked not to throw before it is broken.
#include "models/energy/energy_check.hpp"
#include "models/core/invariant.hpp"
#include "trace_builders.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace fleetsim::models::energy {
namespace {

constexpr auto kCompute = static_cast<size_t>(GpuState::Compute);
constexpr auto kCommunicate = static_cast<size_t>(GpuState::Communicate);
constexpr auto kIdle = static_cast<size_t>(GpuState::Idle);
constexpr auto kCheckpoint = static_cast<size_t>(GpuState::Checkpoint);
constexpr auto kOff = static_cast<size_t>(GpuState::Off);
constexpr double kNudge = 1 + 1e-6;  // a thousand times the check's tolerance

PhaseSegment job_seg(double a, double b, Phase p, bool interrupted = false)
{
  PhaseSegment s = testing::seg(a, b, p, interrupted);
  s.active_gpus = 16;
  s.step_time = 2.0;
  s.tokens_per_step = testing::kTokensPerStep;
  return s;
}

// A 16-GPU job on 24 GPUs through every phase that draws differently: training, a checkpoint, a
// failure that takes a node down (detection, restart, reload), a staggered warmup, a data stall.
TraceLog every_phase()
{
  CheckpointCommitted c;
  c.t = 110;
  c.step = 50;
  Interruption failure;
  failure.t = 150;
  failure.cause = "gpu";
  failure.gpus_down = 8;
  return {job_seg(0, 100, Phase::Training),
          job_seg(100, 110, Phase::Checkpoint),
          c,
          job_seg(110, 150, Phase::Training, true),
          failure,
          job_seg(150, 170, Phase::Detection),
          job_seg(170, 200, Phase::Restart),
          job_seg(200, 210, Phase::Reload),
          job_seg(210, 230, Phase::Warmup),
          job_seg(230, 300, Phase::Training),
          job_seg(300, 310, Phase::DataStall),
          job_seg(310, 400, Phase::Training)};
}

// Every component draws, each at least 1% of the facility's draw in the rows it is in (so that
// kNudge of any term moves a row by more than the check's 1e-9 of the facility's draw): off GPUs at
// 20 W, a floor above the communicate, idle and checkpoint draws, nodes, both link classes, a
// storage with a fixed draw and a load, a PUE; and a staggered restart.
ReplayPower every_component()
{
  ReplayPower in;
  in.cluster_gpus = 24;
  in.gpus_per_node = 8;
  in.job_gpus = 16;
  in.compute_s = 1.5;
  in.step_time = 2.0;
  in.traffic.scale_up_bytes = 4e11;   // 256 W at 10 pJ/bit
  in.traffic.scale_out_bytes = 1e11;  // 128 W at 20 pJ/bit
  in.spec.gpu_w[kOff] = 20;
  in.spec.power_floor_w = 400;
  in.spec.node_w = 1000;
  in.spec.scale_up_j_per_bit = 10e-12;
  in.spec.scale_out_j_per_bit = 20e-12;
  in.spec.storage_w = 1000;
  in.spec.storage_j_per_byte = 2e-7;  // 200 to 1000 W
  in.spec.pue = 1.2;
  in.spec.restart_stagger_s = 8;
  in.storage = {{0, 2e9}, {105, 5e9}, {112, 1e9}, {205, 3e9}};
  return in;
}

struct Replay {
  TraceLog log = every_phase();
  GoodputReport report = account(log, testing::kStep, testing::kTokensPerStep);
  ReplayPower in = every_component();
  EnergyReport e = account_energy(report, log, in);  // checked inside
};

// Whether the check throws on `e` (against the run's true inputs) with the invariant's name and a
// message containing `what`.
::testing::AssertionResult fires(const Replay& run, const EnergyReport& e, const std::string& what = "")
{
  try {
    check_energy_account(e, run.report, run.log, run.in);
  } catch (const InvariantViolation& v) {
    if (v.invariant() != "energy accounting closes")
      return ::testing::AssertionFailure() << "the wrong invariant: " << v.invariant();
    if (std::string(v.what()).find(what) == std::string::npos)
      return ::testing::AssertionFailure() << "the message does not name '" << what << "': " << v.what();
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "the check did not fire";
}

TEST(EnergyCheck, AnAccountOfEveryPhaseAndComponentMatchesItsInputs)
{
  const Replay run;
  EXPECT_NO_THROW(check_energy_account(run.e, run.report, run.log, run.in));
  // Every term is there to be broken.
  for (size_t s = 0; s < kGpuStates; ++s)
    EXPECT_GT(run.e.energy.gpu_w[s], 0) << gpu_state_name(static_cast<GpuState>(s));
  EXPECT_GT(run.e.energy.floor_w, 0);
  EXPECT_GT(run.e.energy.node_w, 0);
  EXPECT_GT(run.e.energy.network_w, 0);
  EXPECT_GT(run.e.energy.storage_w, 0);
  EXPECT_GT(run.e.energy.overhead_w, 0);
  ASSERT_EQ(run.e.rows.size(), 10u);
  EXPECT_GT(run.e.gpus[3][kOff], 0);  // detection: the failed node's GPUs
}

TEST(EnergyCheck, AnAccountBuiltFromOneWrongInputFailsTheCheck)
{
  const Replay run;
  const std::vector<std::pair<std::string, std::function<void(ReplayPower&)>>> broken = {
      {"the compute draw", [](ReplayPower& in) { in.spec.gpu_w[kCompute] *= kNudge; }},
      {"the communicate draw", [](ReplayPower& in) { in.spec.gpu_w[kCommunicate] *= kNudge; }},
      {"the idle draw", [](ReplayPower& in) { in.spec.gpu_w[kIdle] *= kNudge; }},
      {"the checkpoint draw", [](ReplayPower& in) { in.spec.gpu_w[kCheckpoint] *= kNudge; }},
      {"the off draw", [](ReplayPower& in) { in.spec.gpu_w[kOff] *= kNudge; }},
      {"a power limit", [](ReplayPower& in) { in.spec.gpu_power_limit_w = 699.999; }},
      {"the power floor", [](ReplayPower& in) { in.spec.power_floor_w *= kNudge; }},
      {"the node draw", [](ReplayPower& in) { in.spec.node_w *= kNudge; }},
      {"the scale-up energy per bit", [](ReplayPower& in) { in.spec.scale_up_j_per_bit *= kNudge; }},
      {"the scale-out energy per bit", [](ReplayPower& in) { in.spec.scale_out_j_per_bit *= kNudge; }},
      {"the scale-up bytes", [](ReplayPower& in) { in.traffic.scale_up_bytes *= kNudge; }},
      {"the scale-out bytes", [](ReplayPower& in) { in.traffic.scale_out_bytes *= kNudge; }},
      {"the storage's fixed draw", [](ReplayPower& in) { in.spec.storage_w *= kNudge; }},
      {"the storage's energy per byte", [](ReplayPower& in) { in.spec.storage_j_per_byte *= kNudge; }},
      {"the storage's load", [](ReplayPower& in) { in.storage[2].bytes_per_s *= kNudge; }},
      {"the PUE (cooling and delivery)", [](ReplayPower& in) { in.spec.pue *= kNudge; }},
      {"the step's compute share", [](ReplayPower& in) { in.compute_s *= kNudge; }},
      {"the restart stagger", [](ReplayPower& in) { in.spec.restart_stagger_s *= kNudge; }},
      {"the GPUs per node", [](ReplayPower& in) { in.gpus_per_node = 4; }},
  };
  for (const auto& [what, breaks] : broken) {
    ReplayPower wrong = run.in;
    breaks(wrong);
    const EnergyReport e = account_energy(run.report, run.log, wrong);  // consistent with itself
    EXPECT_TRUE(fires(run, e)) << what;
  }
}

TEST(EnergyCheck, EachTermOfARowBrokenInTurnFailsTheCheckNamingIt)
{
  const Replay run;
  // Rows: 0 training, 1 checkpoint, 3 detection (a node off), 6 warmup (staggered), 7 training.
  const std::vector<std::tuple<std::string, std::function<void(EnergyReport&)>>> broken = {
      {"the computing GPUs' draw", [](EnergyReport& e) { e.rows[0].gpu_w[kCompute] *= kNudge; }},
      {"the communicating GPUs' draw", [](EnergyReport& e) { e.rows[3].gpu_w[kCommunicate] *= kNudge; }},
      {"the idle GPUs' draw", [](EnergyReport& e) { e.rows[6].gpu_w[kIdle] *= kNudge; }},
      {"the checkpointing GPUs' draw", [](EnergyReport& e) { e.rows[1].gpu_w[kCheckpoint] *= kNudge; }},
      {"the off GPUs' draw", [](EnergyReport& e) { e.rows[3].gpu_w[kOff] *= kNudge; }},
      {"the power floor's draw", [](EnergyReport& e) { e.rows[1].floor_w *= kNudge; }},
      {"the nodes' draw", [](EnergyReport& e) { e.rows[3].node_w *= kNudge; }},
      {"the network's draw", [](EnergyReport& e) { e.rows[6].network_w *= kNudge; }},
      {"the storage's draw", [](EnergyReport& e) { e.rows[1].storage_w *= kNudge; }},
      {"the cooling and power delivery overhead", [](EnergyReport& e) { e.rows[7].overhead_w *= kNudge; }},
      {"the energy so far", [](EnergyReport& e) { e.energy_j[4] *= kNudge; }},
      // A watt moved between components: the facility's draw is unchanged.
      {"the nodes' draw",
       [](EnergyReport& e) {
         e.rows[2].node_w -= 1;
         e.rows[2].storage_w += 1;
       }},
      // GPUs moved between states (the off ones draw little): the cluster still adds up.
      {"the GPUs idle",
       [](EnergyReport& e) {
         e.gpus[3][kOff] -= 1e-3;
         e.gpus[3][kIdle] += 1e-3;
       }},
      // The GPU-count closure: a GPU in no state.
      {"GPUs in some state, but the cluster has", [](EnergyReport& e) { e.gpus[5][kIdle] -= 1; }},
      {"timeline rows, but the account has", [](EnergyReport& e) { e.rows.pop_back(); }},
  };
  for (const auto& [what, breaks] : broken) {
    EnergyReport e = run.e;
    ASSERT_NO_THROW(check_energy_account(e, run.report, run.log, run.in)) << what;
    breaks(e);
    EXPECT_TRUE(fires(run, e, what)) << what;
  }
}

TEST(EnergyCheck, EachComponentsEnergyOverTheRunBrokenInTurnFailsTheCheckNamingIt)
{
  const Replay run;
  const std::vector<std::tuple<std::string, std::function<void(EnergyReport&)>>> broken = {
      {"the computing GPUs' energy", [](EnergyReport& e) { e.energy.gpu_w[kCompute] *= kNudge; }},
      {"the communicating GPUs' energy", [](EnergyReport& e) { e.energy.gpu_w[kCommunicate] *= kNudge; }},
      {"the idle GPUs' energy", [](EnergyReport& e) { e.energy.gpu_w[kIdle] *= kNudge; }},
      {"the checkpointing GPUs' energy", [](EnergyReport& e) { e.energy.gpu_w[kCheckpoint] *= kNudge; }},
      {"the off GPUs' energy", [](EnergyReport& e) { e.energy.gpu_w[kOff] *= kNudge; }},
      {"the power floor's energy", [](EnergyReport& e) { e.energy.floor_w *= kNudge; }},
      {"the nodes' energy", [](EnergyReport& e) { e.energy.node_w *= kNudge; }},
      {"the network's energy", [](EnergyReport& e) { e.energy.network_w *= kNudge; }},
      {"the storage's energy", [](EnergyReport& e) { e.energy.storage_w *= kNudge; }},
      {"the cooling and power delivery overhead's energy", [](EnergyReport& e) { e.energy.overhead_w *= kNudge; }},
      {"the mean draw", [](EnergyReport& e) { e.mean_w *= kNudge; }},
      {"the peak draw", [](EnergyReport& e) { e.peak_w *= kNudge; }},
  };
  for (const auto& [what, breaks] : broken) {
    EnergyReport e = run.e;
    breaks(e);
    EXPECT_TRUE(fires(run, e, what)) << what;
  }
}

TEST(EnergyCheck, RoundingFarBelowTheToleranceDoesNotFire)
{
  const Replay run;
  EnergyReport e = run.e;
  e.rows[0].gpu_w[kCompute] *= 1 + 1e-13;
  e.energy.node_w *= 1 + 1e-13;
  EXPECT_NO_THROW(check_energy_account(e, run.report, run.log, run.in));
}

}  // namespace
}  // namespace fleetsim::models::energy
