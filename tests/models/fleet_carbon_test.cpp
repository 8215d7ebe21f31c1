// Carbon-aware shifting and energy attribution in the fleet state machine (no SimGrid), on small
// hand-checked profiles: a deferrable job waits for the cleanest hour within its delay, queues from
// then (not ahead of the jobs submitted meanwhile), and the jobs' and the fleet's energy and carbon.

#include "models/fleet/fleet_energy.hpp"
#include "models/fleet/fleet_state.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace fm = fleetsim::models::fleet;
namespace me = fleetsim::models::energy;

namespace {

constexpr double kH = 3600;

fm::JobSpec job(std::string id, double submit_h, long gpus, double work_h, double deferrable_h = 0)
{
  fm::JobSpec j;
  j.id = std::move(id);
  j.submit = submit_h * kH;
  j.gpus = gpus;
  j.work = work_h * kH;
  j.deferrable = deferrable_h * kH;
  return j;
}

// 500 g/kWh but 100 over hours 10 to 13.
me::CarbonProfile dip_day()
{
  std::vector<double> g(24, 500.0);
  for (int h = 10; h < 14; ++h)
    g[static_cast<size_t>(h)] = 100.0;
  return me::CarbonProfile(g);
}

fm::FleetConfig one_node(bool carbon_aware, double horizon_h = 48)
{
  fm::FleetConfig c;
  c.nodes = 1;
  c.gpus_per_node = 8;
  c.horizon = horizon_h * kH;
  c.timeline_interval = kH;
  c.carbon = dip_day();
  c.carbon_aware = carbon_aware;
  return c;
}

// Submits the jobs at their times and fires timers in between, as the simulator's actors do.
struct FleetRun {
  std::unique_ptr<fm::SchedulingPolicy> policy = fm::find_scheduling_policy("fifo")->make();
  std::unique_ptr<fm::FleetState> fleet;
  FleetRun(fm::FleetConfig c, const fm::Workload& w)
  {
    fleet = std::make_unique<fm::FleetState>(c, w, *policy);
    size_t next = 0;
    while (true) {
      const double t_sub = next < w.size() ? w[next].submit : c.horizon;
      const double t_timer = fleet->next_timer().value_or(c.horizon);
      if (std::min(t_sub, t_timer) >= c.horizon)
        break;
      if (t_timer < t_sub)
        fleet->fire_timers(t_timer);
      else
        fleet->submit(static_cast<long>(next++), t_sub);
    }
    fleet->fire_timers(c.horizon);
    fleet->finish(c.horizon);
  }
  const fm::JobRecord& operator[](size_t j) const { return fleet->jobs()[j]; }
};

}  // namespace

TEST(CarbonAwareFleet, ADeferrableJobStartsAtTheCleanestHourWithinItsDelay)
{
  const fm::Workload w = {job("eval", 7.5, 8, 2, 12)};
  const FleetRun aware(one_node(true), w);
  EXPECT_EQ(aware[0].eligible, 10 * kH);
  EXPECT_EQ(aware[0].first_start, 10 * kH);
  EXPECT_EQ(aware[0].end, 12 * kH);
  EXPECT_EQ(aware[0].waited, 0);  // deferral is not queueing
  // Its whole run at 100 g/kWh: 8 GPUs x 2 h of training.
  EXPECT_DOUBLE_EQ(aware[0].training_gpu_s, 8 * 2 * kH);
  EXPECT_NEAR(aware[0].training_gpu_s_ci, 8 * 2 * kH * 100, 1e-6);
  EXPECT_NEAR(aware[0].allocated_gpu_s_ci, 8 * 2 * kH * 100, 1e-6);

  const FleetRun off(one_node(false), w);
  EXPECT_EQ(off[0].eligible, 7.5 * kH);
  EXPECT_EQ(off[0].first_start, 7.5 * kH);
  // 7:30 to 9:30 at 500 g/kWh.
  EXPECT_NEAR(off[0].allocated_gpu_s_ci, 8 * 2 * kH * 500, 1e-6);
}

TEST(CarbonAwareFleet, JobsThatAreNotDeferrableStartAtOnce)
{
  const FleetRun r(one_node(true), {job("train", 7.5, 8, 2)});
  EXPECT_EQ(r[0].eligible, 7.5 * kH);
  EXPECT_EQ(r[0].first_start, 7.5 * kH);
}

TEST(CarbonAwareFleet, ADeferredJobQueuesFromItsEligibleTimeNotItsSubmit)
{
  // The node is busy until 20:00. "eval" (submitted at 0:00) is eligible at 10:00; "train"
  // arrives at 5:00. FIFO by eligible time: train runs first, then eval.
  const fm::Workload w = {job("busy", 0, 8, 20), job("eval", 0, 8, 1, 12), job("train", 5, 8, 1)};
  const FleetRun r(one_node(true), w);
  EXPECT_EQ(r[1].eligible, 10 * kH);
  EXPECT_EQ(r[2].first_start, 20 * kH);
  EXPECT_EQ(r[1].first_start, 21 * kH);
  EXPECT_EQ(r[1].waited, 11 * kH);  // queued from 10:00 to 21:00
  // Without carbon awareness, eval keeps its submit order.
  const FleetRun off(one_node(false), w);
  EXPECT_EQ(off[1].first_start, 20 * kH);
  EXPECT_EQ(off[2].first_start, 21 * kH);
}

TEST(CarbonAwareFleet, AJobStillDeferredAtTheEndIsReportedSo)
{
  const FleetRun r(one_node(true, 9), {job("eval", 7.5, 8, 2, 12)});
  EXPECT_EQ(r[0].state, fm::JobState::Deferred);
  EXPECT_EQ(r[0].first_start, -1);
  EXPECT_EQ(r[0].time.allocated, 0);
}

TEST(FleetEnergy, AJobIsChargedItsGpusByStateAndItsNodesShare)
{
  fm::Workload w = {job("a", 0, 8, 2)};
  w[0].restart_cost = 0.5 * kH;
  const FleetRun r(one_node(false), w);
  fm::FleetEnergyInputs in;
  in.power.gpu_w = {700, 350, 100, 150, 0};
  in.power.node_w = 800;
  in.power.pue = 1.25;
  in.compute_fraction = 0.7;
  in.gpus = 8;
  in.gpus_per_node = 8;
  const fm::JobEnergy e = fm::job_energy(r[0], in);
  // 8 GPUs: 2 h training at 0.7 x 700 + 0.3 x 350 = 595 W, 0.5 h restarting at 150 W, and the
  // node's 800 W over 2.5 h; times the PUE.
  const double expected = 1.25 * (8 * 2 * kH * 595 + 8 * 0.5 * kH * 150 + 2.5 * kH * 800);
  EXPECT_NEAR(e.energy_j, expected, 1e-6 * expected);
  // Restart 0:00-0:30 and training to 2:30, all at 500 g/kWh: kg = kWh x 0.5.
  EXPECT_NEAR(e.carbon_kg, expected / 3.6e6 * 0.5, 1e-6);
  // A power floor of 400 W raises the held and communicating GPUs' draw.
  in.power.power_floor_w = 400;
  const double floored = 1.25 * (8 * 2 * kH * (0.7 * 700 + 0.3 * 400) + 8 * 0.5 * kH * 400 + 2.5 * kH * 800);
  EXPECT_NEAR(fm::job_energy(r[0], in).energy_j, floored, 1e-6 * floored);
}

TEST(FleetEnergy, TimelineRowsTileTheWindowAndAddUpToTheFacility)
{
  fm::Workload w = {job("a", 0, 8, 2)};
  w[0].restart_cost = 0.5 * kH;
  const FleetRun r(one_node(false, 4), w);
  fm::FleetEnergyInputs in;
  in.power.gpu_w = {700, 350, 100, 150, 0};
  in.power.node_w = 800;
  in.power.storage_w = 1000;
  in.power.pue = 1.5;
  in.gpus = 8;
  in.gpus_per_node = 8;
  const me::CarbonProfile profile = dip_day();
  in.carbon = &profile;
  const fm::FleetEnergy e = fm::fleet_energy(r.fleet->timeline(), in, {});
  ASSERT_EQ(e.rows.size(), 4u);
  // Hour 0: half restarting (8 x 150 W), half training (8 x 595 W); hours 1: training; 2-3: idle.
  const double it0 = 0.5 * 8 * 150 + 0.5 * 8 * 595 + 800 + 1000;
  EXPECT_NEAR(e.rows[0].draw.facility(), 1.5 * it0, 1e-9);
  EXPECT_NEAR(e.rows[1].draw.facility(), 1.5 * (8 * 595 + 800 + 1000), 1e-9);
  EXPECT_NEAR(e.rows[3].draw.facility(), 1.5 * (8 * 100 + 800 + 1000), 1e-9);
  EXPECT_NEAR(e.rows[0].carbon_kg, e.rows[0].energy_j / 3.6e6 * 0.5, 1e-9);
  double sum = 0;
  for (const auto& row : e.rows)
    sum += row.energy_j;
  EXPECT_NEAR(e.facility_j, sum, 1e-9 * sum);
  EXPECT_EQ(e.peak_t, 1 * kH);
  EXPECT_NEAR(e.energy_j.overhead_w, 0.5 * e.energy_j.it(), 1e-6);
}
