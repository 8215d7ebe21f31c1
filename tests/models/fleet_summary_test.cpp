// The derived figures of a fleet's summary (models/fleet/fleet_summary.hpp).
#include "models/fleet/fleet_summary.hpp"

#include <gtest/gtest.h>

namespace fleetsim::models::fleet {
namespace {

TEST(FleetSummary, ADistributionsFiguresAndAnEmptyOne)
{
  const Distribution d = describe({4, 1, 3, 2});
  EXPECT_EQ(d.count, 4u);
  EXPECT_DOUBLE_EQ(d.mean, 2.5);
  EXPECT_DOUBLE_EQ(d.p50, 2.5);
  EXPECT_DOUBLE_EQ(d.max, 4);
  EXPECT_NEAR(d.p99, 3.97, 1e-12);  // linear between order statistics
  EXPECT_EQ(describe({}).count, 0u);
}

TEST(FleetSummary, JobsByStateWaitsSlowdownAndRacks)
{
  Workload specs(4);
  std::vector<JobRecord> jobs(4);
  specs[0].gpus = 8, specs[0].submit = 0, specs[0].work = 100;
  jobs[0].state = JobState::Done, jobs[0].first_start = 50, jobs[0].end = 150, jobs[0].held = 8, jobs[0].racks = 1;
  specs[1].gpus = 64, specs[1].submit = 10, specs[1].work = 5;  // short: the floor of 10 s applies
  jobs[1].state = JobState::Done, jobs[1].first_start = 10, jobs[1].end = 40, jobs[1].held = 64, jobs[1].racks = 3;
  specs[2].gpus = 512, specs[2].submit = 20;
  jobs[2].state = JobState::Detecting, jobs[2].first_start = 30, jobs[2].held = 512, jobs[2].racks = 5;
  specs[3].gpus = 16, specs[3].submit = 30;
  jobs[3].state = JobState::Waiting;
  const JobCounts c = count_jobs(jobs, specs, 1024, 128);
  EXPECT_EQ(c.started, 3);
  EXPECT_EQ(c.finished, 2);
  EXPECT_EQ(c.running, 1) << "a recovering job holds its GPUs";
  EXPECT_EQ(c.waiting, 1);
  EXPECT_EQ(c.bounded_slowdown, (std::vector<double>{1.5, 3.0}));
  EXPECT_DOUBLE_EQ(c.racks_spanned_mean, 4) << "the two jobs wider than a node: 3 and 5 racks";
  EXPECT_EQ(first_waits(jobs, specs, 0, 1L << 62), (std::vector<double>{50, 0, 10}));
  EXPECT_EQ(first_waits(jobs, specs, 9, 64), (std::vector<double>{0}));
}

}  // namespace
}  // namespace fleetsim::models::fleet
