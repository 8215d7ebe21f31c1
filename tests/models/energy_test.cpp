#include "models/energy/energy_account.hpp"
#include "models/energy/power_model.hpp"
#include "models/energy/step_traffic.hpp"
#include "models/core/invariant.hpp"
#include "trace_builders.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace fleetsim::models::energy {
namespace {

using testing::seg;
constexpr auto kCompute = static_cast<size_t>(GpuState::Compute);
constexpr auto kCommunicate = static_cast<size_t>(GpuState::Communicate);
constexpr auto kIdle = static_cast<size_t>(GpuState::Idle);
constexpr auto kCheckpoint = static_cast<size_t>(GpuState::Checkpoint);
constexpr auto kOff = static_cast<size_t>(GpuState::Off);

TEST(PowerModel, TwentyFiveThousandH100sAt700WDraw17Point5MegawattsOfAcceleratorPower)
{
  PowerSpec p;  // H100: 700 W while computing (published.md)
  Activity a;
  a.job[kCompute] = 25000;
  const PowerDraw d = draw(p, a);
  EXPECT_DOUBLE_EQ(d.gpus(), 17.5e6);
  EXPECT_DOUBLE_EQ(d.gpu_w[kCompute], 17.5e6);
  EXPECT_DOUBLE_EQ(d.node_w, 0);
}

TEST(PowerModel, EveryComponentAddsUpAndTheOverheadIsPueMinusOneOfIt)
{
  PowerSpec p;
  p.node_w = 2000;
  p.storage_w = 1e5;
  p.storage_j_per_byte = 2e-9;
  p.scale_out_j_per_bit = 5e-12;
  p.pue = 1.25;
  Activity a;
  a.job[kCompute] = 6;
  a.job[kCommunicate] = 2;
  a.other[kIdle] = 8;
  a.nodes = 2;
  a.scale_out_bps = 1e11;
  a.storage_bps = 1e10;
  const PowerDraw d = draw(p, a);
  EXPECT_DOUBLE_EQ(d.gpus(), 6 * 700 + 2 * 350 + 8 * 100);
  EXPECT_DOUBLE_EQ(d.node_w, 4000);
  EXPECT_DOUBLE_EQ(d.network_w, 8 * 1e11 * 5e-12);  // 4 W
  EXPECT_DOUBLE_EQ(d.storage_w, 1e5 + 1e10 * 2e-9);
  EXPECT_NEAR(d.overhead_w, 0.25 * d.it(), 1e-9);
  EXPECT_NEAR(d.facility(), 1.25 * d.it(), 1e-9);
}

TEST(PowerModel, APowerLimitCapsEveryStateAndSlowsTheComputeAlongTheDvfsCurve)
{
  PowerSpec p;
  EXPECT_EQ(compute_speed(p), 1.0);
  p.gpu_power_limit_w = 700;
  EXPECT_EQ(compute_speed(p), 1.0);
  // Headroom above idle of 1/8 at exponent 3: half the speed.
  p.gpu_power_limit_w = 100 + 600.0 / 8;
  EXPECT_NEAR(compute_speed(p), 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(gpu_draw(p, GpuState::Compute), 175);
  EXPECT_DOUBLE_EQ(gpu_draw(p, GpuState::Communicate), 175);
  EXPECT_DOUBLE_EQ(gpu_draw(p, GpuState::Idle), 100);
  p.dvfs_exponent = 1;  // linear: speed = headroom
  EXPECT_NEAR(compute_speed(p), 0.125, 1e-12);
  p.gpu_power_limit_w = 550;  // monotone in the limit
  p.dvfs_exponent = 3;
  const double at550 = compute_speed(p);
  p.gpu_power_limit_w = 450;
  EXPECT_LT(compute_speed(p), at550);
  EXPECT_GT(at550, 0.9);
}

TEST(PowerModel, APowerFloorBurnsTheDifferenceOnlyForTheRunningJobsGpus)
{
  PowerSpec p;
  p.power_floor_w = 500;
  Activity a;
  a.job[kCompute] = 10;
  a.job[kCommunicate] = 10;
  a.job[kCheckpoint] = 4;
  a.other[kIdle] = 6;
  a.floor_held = true;
  EXPECT_DOUBLE_EQ(draw(p, a).floor_w, 10 * (500 - 350) + 4 * (500 - 150));
  a.floor_held = false;  // the job's processes are gone: no dummy load
  EXPECT_DOUBLE_EQ(draw(p, a).floor_w, 0);
}

// A 16-GPU job on a 24-GPU cluster (one spare node): 2 s steps, 1.5 s of compute.
ReplayPower small_cluster()
{
  ReplayPower in;
  in.cluster_gpus = 24;
  in.gpus_per_node = 8;
  in.job_gpus = 16;
  in.compute_s = 1.5;
  in.step_time = 2.0;
  in.spec.node_w = 1000;
  in.spec.pue = 1;  // the swings and draws below are IT watts
  in.traffic.scale_up_bytes = 4e9;
  in.traffic.scale_out_bytes = 1e9;
  in.spec.scale_up_j_per_bit = 10e-12;
  in.spec.scale_out_j_per_bit = 10e-12;
  return in;
}

PhaseSegment job_seg(double a, double b, Phase p, bool interrupted = false)
{
  PhaseSegment s = seg(a, b, p, interrupted);
  s.active_gpus = 16;
  s.step_time = 2.0;
  s.tokens_per_step = testing::kTokensPerStep;
  return s;
}

Interruption failure_at(double t, long gpus_down)
{
  Interruption i;
  i.t = t;
  i.cause = "gpu";
  i.gpus_down = gpus_down;
  return i;
}

TraceLog failure_run()
{
  CheckpointCommitted c;
  c.t = 110;
  c.step = 50;
  return {job_seg(0, 100, Phase::Training),
          job_seg(100, 110, Phase::Checkpoint),
          c,
          job_seg(110, 150, Phase::Training, true),
          failure_at(150, 8),
          job_seg(150, 170, Phase::Detection),
          job_seg(170, 200, Phase::Restart),
          job_seg(200, 210, Phase::Reload),
          job_seg(210, 300, Phase::Training)};
}

EnergyReport account_run(const TraceLog& log, const ReplayPower& in)
{
  const GoodputReport g = account(log, testing::kStep, testing::kTokensPerStep);
  return account_energy(g, log, in);
}

TEST(EnergyAccount, EachPhaseDrawsItsStatesAndTheFailedNodeIsOffUntilTheJobTrainsAgain)
{
  const ReplayPower in = small_cluster();
  const EnergyReport e = account_run(failure_run(), in);
  ASSERT_EQ(e.rows.size(), 7u);
  // Training: 3/4 of each step computing, 1/4 communicating; the spare node idles.
  EXPECT_DOUBLE_EQ(e.rows[0].gpu_w[kCompute], 12 * 700);
  EXPECT_DOUBLE_EQ(e.rows[0].gpu_w[kCommunicate], 4 * 350);
  EXPECT_DOUBLE_EQ(e.rows[0].gpu_w[kIdle], 8 * 100);
  EXPECT_DOUBLE_EQ(e.rows[0].node_w, 3 * 1000);
  EXPECT_DOUBLE_EQ(e.rows[0].network_w, 16 * 8 * (4e9 + 1e9) / 2.0 * 10e-12);
  EXPECT_DOUBLE_EQ(e.rows[1].gpu_w[kCheckpoint], 16 * 150);
  EXPECT_DOUBLE_EQ(e.rows[1].network_w, 0);
  // Detection: the job hangs in a collective; the failed node's 8 GPUs are off, and so is the node.
  EXPECT_DOUBLE_EQ(e.rows[3].gpu_w[kCommunicate], 16 * 350);
  EXPECT_DOUBLE_EQ(e.rows[3].gpu_w[kOff], 0);   // off GPUs draw 0 W ...
  EXPECT_DOUBLE_EQ(e.rows[3].gpu_w[kIdle], 0);  // ... and none is left idle: 16 + 8 = 24
  EXPECT_DOUBLE_EQ(e.rows[3].node_w, 2 * 1000);
  EXPECT_DOUBLE_EQ(e.rows[4].gpu_w[kIdle], 16 * 100);  // restart: idle
  EXPECT_DOUBLE_EQ(e.rows[6].gpu_w[kIdle], 8 * 100);   // training again: the spare is back to idle
  EXPECT_DOUBLE_EQ(e.rows[6].node_w, 3 * 1000);
}

TEST(EnergyAccount, TheRowsEnergiesAddUpToTheComponentsAndTheSwingsNameTheirCauses)
{
  const EnergyReport e = account_run(failure_run(), small_cluster());
  double joules = 0;
  const double durations[] = {100, 10, 40, 20, 30, 10, 90};
  for (size_t i = 0; i < e.rows.size(); ++i) {
    joules += e.rows[i].facility() * durations[i];
    EXPECT_NEAR(e.energy_j[i], joules, 1e-6);
  }
  EXPECT_NEAR(e.energy.facility(), joules, 1e-6);
  EXPECT_NEAR(e.mean_w, joules / 300, 1e-9);
  EXPECT_EQ(e.by_cause.at("start").count, 1);
  EXPECT_EQ(e.by_cause.at("checkpoint").count, 2);
  EXPECT_EQ(e.by_cause.at("failure").count, 1);  // training -> detection at the interruption
  EXPECT_EQ(e.by_cause.at("restart").count, 1);  // reload -> training
  // Detection -> restart; restart -> reload draws the same (idle, the failed node off): no swing.
  EXPECT_EQ(e.by_cause.at("recovery").count, 1);
  const double failure = e.rows[3].facility() - e.rows[2].facility();
  EXPECT_NEAR(e.by_cause.at("failure").max_w, std::fabs(failure), 1e-9);
  EXPECT_DOUBLE_EQ(e.by_cause.at("failure").t_max, 150);
  EXPECT_LT(failure, 0);
  ASSERT_FALSE(e.largest.empty());
  for (size_t i = 1; i < e.largest.size(); ++i)
    EXPECT_GE(std::fabs(e.largest[i - 1].delta_w), std::fabs(e.largest[i].delta_w));
  EXPECT_NEAR(e.peak_w, e.rows[0].facility(), 1e-9);
  // Inside a step: 16 GPUs between 700 W and 350 W.
  EXPECT_DOUBLE_EQ(e.step_swing_w, 16 * 350);
  EXPECT_DOUBLE_EQ(e.compute_fraction, 0.75);
}

TEST(EnergyAccount, HalvingTheEnergyPerBitFrom10To5PicojoulesHalvesTheInterconnectEnergy)
{
  ReplayPower in = small_cluster();
  const EnergyReport at10 = account_run(failure_run(), in);
  in.spec.scale_up_j_per_bit = 5e-12;
  in.spec.scale_out_j_per_bit = 5e-12;
  const EnergyReport at5 = account_run(failure_run(), in);
  ASSERT_GT(at10.energy.network_w, 0);
  EXPECT_NEAR(at5.energy.network_w / at10.energy.network_w, 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(at5.energy.gpus(), at10.energy.gpus());
  EXPECT_DOUBLE_EQ(at5.energy.node_w, at10.energy.node_w);
}

TEST(EnergyAccount, AFloorShrinksTheStepAndCheckpointSwingsAndChargesItsEnergy)
{
  ReplayPower in = small_cluster();
  const EnergyReport free = account_run(failure_run(), in);
  in.spec.power_floor_w = 500;
  const EnergyReport floored = account_run(failure_run(), in);
  EXPECT_DOUBLE_EQ(floored.step_swing_w, 16 * (700 - 500));
  EXPECT_LT(floored.by_cause.at("checkpoint").max_w, free.by_cause.at("checkpoint").max_w);
  // Training 230 s: 4 communicating GPUs at +150 W; checkpoint 10 s: 16 at +350 W; detection 20 s:
  // 16 at +150 W; reload 10 s: 16 at +400 W. Restart: none (the processes are gone).
  const double extra = 230 * 4 * 150.0 + 10 * 16 * 350.0 + 20 * 16 * 150.0 + 10 * 16 * 400.0;
  EXPECT_NEAR(floored.energy.floor_w, extra, 1e-6);
  EXPECT_NEAR(floored.energy.facility() - free.energy.facility(), extra, 1e-6);
}

TraceLog warmup_run()
{
  return {job_seg(0, 100, Phase::Training, true), failure_at(100, 8),
          job_seg(100, 110, Phase::Detection),    job_seg(110, 130, Phase::Restart),
          job_seg(130, 140, Phase::Reload),       job_seg(140, 160, Phase::Warmup),
          job_seg(160, 200, Phase::Training)};
}

TEST(EnergyAccount, AStaggeredRestartRampsTheWarmupsLoadAndSlowsTheRestartSwing)
{
  ReplayPower in = small_cluster();
  const EnergyReport at_once = account_run(warmup_run(), in);
  in.spec.restart_stagger_s = 8;
  const EnergyReport staggered = account_run(warmup_run(), in);
  ASSERT_EQ(staggered.rows.size(), 6u);
  // Over the 20 s warmup the load rises for 8 s: on average 8 / 40 of the job's GPUs still idle.
  const PowerDraw& full = at_once.rows[4];
  const PowerDraw& ramp = staggered.rows[4];
  EXPECT_DOUBLE_EQ(ramp.gpu_w[kCompute], full.gpu_w[kCompute] * 0.8);
  EXPECT_DOUBLE_EQ(ramp.gpu_w[kIdle], full.gpu_w[kIdle] + 0.2 * 16 * 100);
  EXPECT_DOUBLE_EQ(ramp.network_w, full.network_w * 0.8);
  EXPECT_NEAR(at_once.energy.facility() - staggered.energy.facility(),
              20 * (0.2 * (12 * 700 + 4 * 350 - 16 * 100) + 0.2 * full.network_w), 1e-6);
  // The swing is the whole change of load, taken over the stagger instead of the ramp time; the
  // warmup's end is no swing (its load is the training's).
  const SwingStats& a = at_once.by_cause.at("restart");
  const SwingStats& b = staggered.by_cause.at("restart");
  EXPECT_EQ(b.count, 1);
  EXPECT_DOUBLE_EQ(b.max_w, a.max_w);
  EXPECT_DOUBLE_EQ(b.max_ramp_w_per_s, b.max_w / 8);
  EXPECT_DOUBLE_EQ(a.max_ramp_w_per_s, a.max_w / 0.1);
  EXPECT_DOUBLE_EQ(b.max_w, full.facility() - at_once.rows[3].facility());
  // A 40 s stagger in a 20 s warmup: the load reached half its level, a quarter on average.
  in.spec.restart_stagger_s = 40;
  const EnergyReport cut = account_run(warmup_run(), in);
  EXPECT_DOUBLE_EQ(cut.rows[4].gpu_w[kCompute], full.gpu_w[kCompute] * 0.25);
  EXPECT_DOUBLE_EQ(cut.by_cause.at("restart").max_ramp_w_per_s, b.max_w / 40);
}

TEST(EnergyAccount, AGpuLeftOutOfEveryStateBreaksTheInvariant)
{
  ReplayPower in = small_cluster();
  in.cluster_gpus = 12;  // fewer than the job's 16: the rows cannot close
  EXPECT_THROW((void)account_run(failure_run(), in), InvariantViolation);
}

TEST(StepTraffic, CountsEachCollectivesBytesPerGpuOnItsLinkClass)
{
  StepInputs in;
  in.workload.parameters = 8e9;
  in.workload.layers = 32;
  in.workload.hidden = 4096;
  in.workload.sequence_length = 4096;
  in.workload.global_batch_tokens = 4096.0 * 8 * 4;  // dp 4, 8 micro-batches of 1
  in.workload.bytes_per_value = 2;
  in.layout = {.tp = 8, .pp = 2, .dp = 4};
  const StepTraffic t = step_traffic(in, 8);
  const double activation = 4096.0 * 4096 * 2;
  // TP: 4 all-reduces per layer, 16 layers per stage, 8 micro-batches, 2 (7/8) of the buffer each.
  EXPECT_DOUBLE_EQ(t.scale_up_bytes, 2 * 7.0 / 8 * activation * 4 * 16 * 8);
  // PP: 2 x 8 sends of activation / tp; DP: reduce-scatter + all-gather of 8e9 x 2 / (8 x 2) bytes.
  const double shard = 8e9 * 2 / 16;
  EXPECT_DOUBLE_EQ(t.scale_out_bytes, 2 * 8 * activation / 8 + 2 * 3.0 / 4 * shard);
}

}  // namespace
}  // namespace fleetsim::models::energy
