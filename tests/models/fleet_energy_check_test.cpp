// The fleet's energy invariant (models/fleet/fleet_energy_check.hpp): an account matches the
// check's own computation from the timeline's columns, and every term broken in turn (a wrong input,
// a wrong row, a wrong total, timeline columns that do not close) makes the check throw, naming the
// term. Each broken case is checked not to throw before it is broken.
#include "models/fleet/fleet_energy_check.hpp"
#include "models/core/invariant.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace fleetsim::models::fleet {
namespace {

using energy::GpuState;
constexpr auto kCompute = static_cast<size_t>(GpuState::Compute);
constexpr auto kCommunicate = static_cast<size_t>(GpuState::Communicate);
constexpr auto kIdleState = static_cast<size_t>(GpuState::Idle);
constexpr auto kHeld = static_cast<size_t>(GpuState::Checkpoint);
constexpr auto kOff = static_cast<size_t>(GpuState::Off);
constexpr double kH = 3600;
constexpr double kNudge = 1 + 1e-6;  // a thousand times the check's tolerance

// Four nodes of 8 GPUs over three hours: a job holds nodes 0 and 1 and trains, node 2 idles, node 3
// is the spare. At 1.5 h node 0 fails: the job stops training and, detecting, still holds its 8 GPUs
// (off). At 2.2 h it recovers in place on the spare and trains again from 2.5 h.
FleetTimeline fleet_with_a_failure(double allocated = 16, double training = 16)
{
  FleetTimeline t(3 * kH, kH);
  t.level(kAllocated, allocated, 0);
  t.level(kIdle, 8, 0);
  t.level(kSpare, 8, 0);
  t.add(kTraining, 0, 1.5 * kH, training);
  t.level(kDown, 8, 1.5 * kH);
  t.level(kSpare, 0, 2.2 * kH);
  t.add(kTraining, 2.5 * kH, 3 * kH, training);
  t.finish(3 * kH);
  return t;
}

// Every component the fleet has draws, each at least 1% of the facility's draw in the rows it is in:
// off GPUs at 20 W, a floor above the communicate and checkpoint draws, nodes, storage, a PUE.
FleetEnergyInputs every_component()
{
  FleetEnergyInputs in;
  in.gpus = 32;
  in.gpus_per_node = 8;
  in.compute_fraction = 0.7;
  in.power.gpu_w[static_cast<size_t>(GpuState::Off)] = 20;
  in.power.power_floor_w = 400;
  in.power.node_w = 1000;
  in.power.storage_w = 1000;
  in.power.storage_j_per_byte = 2e-7;
  in.power.pue = 1.25;
  return in;
}

struct Fleet {
  FleetTimeline timeline = fleet_with_a_failure();
  FleetEnergyInputs in = every_component();
  std::vector<double> storage_bps = {1e9, 3e9, 2e9};
  FleetEnergy e = fleet_energy(timeline, in, storage_bps);  // checked inside
};

::testing::AssertionResult fires(const Fleet& f, const FleetEnergy& e, const std::string& what = "",
                                 const std::string& invariant = "fleet energy accounting closes")
{
  try {
    check_fleet_energy(e, f.timeline, f.in, f.storage_bps);
  } catch (const InvariantViolation& v) {
    if (v.invariant() != invariant)
      return ::testing::AssertionFailure() << "the wrong invariant: " << v.invariant();
    if (std::string(v.what()).find(what) == std::string::npos)
      return ::testing::AssertionFailure() << "the message does not name '" << what << "': " << v.what();
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "the check did not fire";
}

TEST(FleetEnergyCheck, AFleetAccountOfEveryComponentMatchesItsTimeline)
{
  const Fleet f;
  EXPECT_NO_THROW(check_fleet_energy(f.e, f.timeline, f.in, f.storage_bps));
  for (size_t s = 0; s < energy::kGpuStates; ++s)
    EXPECT_GT(f.e.energy_j.gpu_w[s], 0) << energy::gpu_state_name(static_cast<GpuState>(s));
  EXPECT_GT(f.e.energy_j.floor_w, 0);
  EXPECT_GT(f.e.energy_j.node_w, 0);
  EXPECT_GT(f.e.energy_j.storage_w, 0);
  EXPECT_GT(f.e.energy_j.overhead_w, 0);
  // Row 2 (2 h to 3 h): 8 down, 8 idle, the spare 0.2 h of the hour, 14.4 held on up nodes, 8 training.
  const energy::GpuMix& g = f.e.rows[2].gpus;
  EXPECT_NEAR(g[kOff], 8, 1e-12);
  EXPECT_NEAR(g[kIdleState], 8 + 1.6, 1e-12);
  EXPECT_NEAR(g[kHeld], 14.4 - 8, 1e-12);
  EXPECT_NEAR(g[kCompute], 0.7 * 8, 1e-12);
}

TEST(FleetEnergyCheck, AnAccountBuiltFromOneWrongInputFailsTheCheck)
{
  const Fleet f;
  const std::vector<std::pair<std::string, std::function<void(FleetEnergyInputs&)>>> broken = {
      {"the compute draw", [](FleetEnergyInputs& in) { in.power.gpu_w[kCompute] *= kNudge; }},
      {"the communicate draw", [](FleetEnergyInputs& in) { in.power.gpu_w[kCommunicate] *= kNudge; }},
      {"the idle draw", [](FleetEnergyInputs& in) { in.power.gpu_w[kIdleState] *= kNudge; }},
      {"the checkpoint (held) draw", [](FleetEnergyInputs& in) { in.power.gpu_w[kHeld] *= kNudge; }},
      {"the off draw", [](FleetEnergyInputs& in) { in.power.gpu_w[kOff] *= kNudge; }},
      {"a power limit", [](FleetEnergyInputs& in) { in.power.gpu_power_limit_w = 699.999; }},
      {"the power floor", [](FleetEnergyInputs& in) { in.power.power_floor_w *= kNudge; }},
      {"the node draw", [](FleetEnergyInputs& in) { in.power.node_w *= kNudge; }},
      {"the storage's fixed draw", [](FleetEnergyInputs& in) { in.power.storage_w *= kNudge; }},
      {"the storage's energy per byte", [](FleetEnergyInputs& in) { in.power.storage_j_per_byte *= kNudge; }},
      {"the PUE (cooling and delivery)", [](FleetEnergyInputs& in) { in.power.pue *= kNudge; }},
      {"the compute fraction", [](FleetEnergyInputs& in) { in.compute_fraction *= kNudge; }},
      {"the GPUs per node", [](FleetEnergyInputs& in) { in.gpus_per_node = 4; }},
  };
  for (const auto& [what, breaks] : broken) {
    FleetEnergyInputs wrong = f.in;
    breaks(wrong);
    const FleetEnergy e = fleet_energy(f.timeline, wrong, f.storage_bps);  // consistent with itself
    EXPECT_TRUE(fires(f, e)) << what;
  }
  // The storage's rates.
  std::vector<double> wrong = f.storage_bps;
  wrong[1] *= kNudge;
  EXPECT_TRUE(fires(f, fleet_energy(f.timeline, f.in, wrong))) << "the storage's rate";
}

TEST(FleetEnergyCheck, EachTermOfARowOrOfTheWindowBrokenInTurnFailsTheCheckNamingIt)
{
  const Fleet f;
  const std::vector<std::tuple<std::string, std::function<void(FleetEnergy&)>>> broken = {
      {"the computing GPUs' draw", [](FleetEnergy& e) { e.rows[0].draw.gpu_w[kCompute] *= kNudge; }},
      {"the communicating GPUs' draw", [](FleetEnergy& e) { e.rows[1].draw.gpu_w[kCommunicate] *= kNudge; }},
      {"the idle GPUs' draw", [](FleetEnergy& e) { e.rows[2].draw.gpu_w[kIdleState] *= kNudge; }},
      {"the held GPUs' draw", [](FleetEnergy& e) { e.rows[1].draw.gpu_w[kHeld] *= kNudge; }},
      {"the off GPUs' draw", [](FleetEnergy& e) { e.rows[2].draw.gpu_w[kOff] *= kNudge; }},
      {"the power floor's draw", [](FleetEnergy& e) { e.rows[1].draw.floor_w *= kNudge; }},
      {"the nodes' draw", [](FleetEnergy& e) { e.rows[2].draw.node_w *= kNudge; }},
      {"the network's draw", [](FleetEnergy& e) { e.rows[0].draw.network_w = 1; }},
      {"the storage's draw", [](FleetEnergy& e) { e.rows[1].draw.storage_w *= kNudge; }},
      {"the cooling and power delivery overhead", [](FleetEnergy& e) { e.rows[0].draw.overhead_w *= kNudge; }},
      {"the row's energy", [](FleetEnergy& e) { e.rows[2].energy_j *= kNudge; }},
      {"the nodes' draw",
       [](FleetEnergy& e) {
         e.rows[0].draw.node_w -= 1;
         e.rows[0].draw.storage_w += 1;
       }},
      {"the GPUs idle",
       [](FleetEnergy& e) {
         e.rows[2].gpus[kOff] -= 1e-3;
         e.rows[2].gpus[kIdleState] += 1e-3;
       }},
      {"the GPUs in some state", [](FleetEnergy& e) { e.rows[1].gpus[kIdleState] -= 1; }},
      {"the computing GPUs' energy", [](FleetEnergy& e) { e.energy_j.gpu_w[kCompute] *= kNudge; }},
      {"the communicating GPUs' energy", [](FleetEnergy& e) { e.energy_j.gpu_w[kCommunicate] *= kNudge; }},
      {"the idle GPUs' energy", [](FleetEnergy& e) { e.energy_j.gpu_w[kIdleState] *= kNudge; }},
      {"the held GPUs' energy", [](FleetEnergy& e) { e.energy_j.gpu_w[kHeld] *= kNudge; }},
      {"the off GPUs' energy", [](FleetEnergy& e) { e.energy_j.gpu_w[kOff] *= kNudge; }},
      {"the power floor's energy", [](FleetEnergy& e) { e.energy_j.floor_w *= kNudge; }},
      {"the nodes' energy", [](FleetEnergy& e) { e.energy_j.node_w *= kNudge; }},
      {"the network's energy", [](FleetEnergy& e) { e.energy_j.network_w = 1; }},
      {"the storage's energy", [](FleetEnergy& e) { e.energy_j.storage_w *= kNudge; }},
      {"the cooling and power delivery overhead's energy", [](FleetEnergy& e) { e.energy_j.overhead_w *= kNudge; }},
      {"the facility's energy, row by row", [](FleetEnergy& e) { e.facility_j *= kNudge; }},
      {"the peak draw", [](FleetEnergy& e) { e.peak_w *= kNudge; }},
      {"timeline rows, but the account has", [](FleetEnergy& e) { e.rows.pop_back(); }},
  };
  for (const auto& [what, breaks] : broken) {
    FleetEnergy e = f.e;
    ASSERT_NO_THROW(check_fleet_energy(e, f.timeline, f.in, f.storage_bps)) << what;
    breaks(e);
    EXPECT_TRUE(fires(f, e, what)) << what;
  }
}

// The closure reads the jobs' allocated GPUs, a column the account does not use.
TEST(FleetEnergyCheck, TimelineColumnsThatDoNotCloseFailTheGpuCountClosure)
{
  const FleetEnergyInputs in = every_component();
  const std::vector<double> storage = {1e9, 3e9, 2e9};
  const std::string closure = "fleet power: every GPU is in one state";
  auto throws = [&](const FleetTimeline& t, const std::string& what) {
    try {
      (void)fleet_energy(t, in, storage);
    } catch (const InvariantViolation& v) {
      return v.invariant() == closure && std::string(v.what()).find(what) != std::string::npos;
    }
    return false;
  };
  EXPECT_FALSE(throws(fleet_with_a_failure(), ""));
  // Up GPUs neither free, spare nor held by a job.
  EXPECT_TRUE(throws(fleet_with_a_failure(15), "but the jobs hold 15"));
  // Held GPUs beyond the up ones and the down ones.
  EXPECT_TRUE(throws(fleet_with_a_failure(25), "but the jobs hold 25"));
  // More GPUs training than held.
  EXPECT_TRUE(throws(fleet_with_a_failure(16, 17), "train on"));
  // A cluster larger than its columns: GPUs in no column.
  FleetEnergyInputs more = in;
  more.gpus = 40;
  EXPECT_THROW((void)fleet_energy(fleet_with_a_failure(), more, storage), InvariantViolation);
}

}  // namespace
}  // namespace fleetsim::models::fleet
