// FleetState's collaborators by responsibility: the timers, the queue and the accounts.
#include "models/fleet/fleet_accounts.hpp"
#include "models/fleet/fleet_timers.hpp"
#include "models/fleet/job_queue.hpp"

#include <gtest/gtest.h>

namespace fleetsim::models::fleet {
namespace {

TEST(TimerQueue, FiresInTimeOrderTiesInTheOrderTheyWereSetAndOnlyWhenDue)
{
  TimerQueue q;
  q.set(5, TimerKind::Finish, 1, 0);
  q.set(2, TimerKind::Repair, 7, 0);
  q.set(5, TimerKind::Detected, 2, 3);
  EXPECT_EQ(q.next(), 2.0);
  EXPECT_FALSE(q.pop_due(1.5)) << "nothing is due before 2";
  const auto first = q.pop_due(10);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->kind, TimerKind::Repair);
  EXPECT_EQ(first->id, 7);
  const auto second = q.pop_due(10);
  const auto third = q.pop_due(10);
  ASSERT_TRUE(second && third);
  EXPECT_EQ(second->id, 1) << "set first, fired first at the same time";
  EXPECT_EQ(third->id, 2);
  EXPECT_EQ(third->epoch, 3);
  EXPECT_FALSE(q.next());
}

TEST(JobQueue, KeepsThePolicysOrderAndTheDemand)
{
  JobQueue q;
  q.insert({0, 10.0, 3}, 64);
  q.insert({-5, 20.0, 4}, 8);  // a higher priority comes first
  q.insert({0, 5.0, 9}, 1);
  EXPECT_EQ(q.first(10), (std::vector<long>{4, 9, 3}));
  EXPECT_EQ(q.first(2), (std::vector<long>{4, 9}));
  EXPECT_EQ(q.demand(), 73);
  q.erase({0, 5.0, 9}, 1);
  EXPECT_EQ(q.demand(), 72);
  EXPECT_EQ(q.size(), 2u);
}

TEST(FleetAccounts, EveryChargeReachesTheJobAndTheTotalAndTheLedgerCloses)
{
  const energy::CarbonProfile none;
  FleetAccounts a(kFirstFailureCause + 1, 7200, 3600, none);
  JobRecord r;
  a.open(r);
  r.held = 16;
  a.allocated(r, 0, 100);
  a.productive(r, 16 * 70.0);
  a.charge(r, kCheckpoint, 16 * 10.0);
  a.charge(r, kFirstFailureCause, 16 * 20.0);
  a.charge(r, kStartup, 0);  // nothing to charge
  EXPECT_DOUBLE_EQ(r.time.allocated, 1600);
  EXPECT_DOUBLE_EQ(a.total().productive, 1120);
  EXPECT_DOUBLE_EQ(a.total().lost[kFirstFailureCause], 320);
  EXPECT_NO_THROW(check_closes(r.time, "job"));
  EXPECT_NO_THROW(check_closes(a.total(), "the fleet"));
  a.charge(r, kPreemption, 1);
  EXPECT_ANY_THROW(check_closes(a.total(), "the fleet"));
}

TEST(FleetAccounts, TrainingFillsTheTimelineRowByRow)
{
  const energy::CarbonProfile none;
  FleetAccounts a(kFirstFailureCause, 7200, 3600, none);
  JobRecord r;
  a.open(r);
  r.held = 8;
  const Segment seg{1800, 600, 0, 0};  // starts at 30 min, trains from 40 min
  a.training(r, seg, 5400);            // to 90 min: 20 min in row 0, 30 min in row 1
  a.timeline().finish(7200);
  EXPECT_DOUBLE_EQ(r.training_gpu_s, 8 * 3000.0);
  EXPECT_NEAR(a.timeline().mean(kTraining, 0), 8 * 1200.0 / 3600, 1e-9);
  EXPECT_NEAR(a.timeline().mean(kTraining, 1), 8 * 1800.0 / 3600, 1e-9);
}

}  // namespace
}  // namespace fleetsim::models::fleet
