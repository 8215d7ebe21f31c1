// The run's node keeper (simulator/actors/node_keeper.hpp): a failure of node scope is applied to
// the pool once and each job that held a struck node is told its own slots; nodes come back through
// the job that lost them while it lives, directly otherwise; the failures and repairs of nodes no
// job held are the spares' owner's, or the run's.
#include "simulator/actors/node_keeper.hpp"
#include "process_harness.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace fleetsim::testing {
namespace {

using sim::Inbox;
using sim::NodeKeeper;
using sim::Process;
using sim::SchedulerMessage;

// Six nodes in racks of two: job A on nodes 0-1 (table 0), job B on 2-3 (table 1), 4-5 idle. One
// cause of node scope; repairs take 10 s exactly.
scenario::Scenario keeper_scenario()
{
  scenario::Scenario s;
  models::FailureCause c;
  c.name = "hw";
  c.scope = models::Scope::Node;
  s.causes = {c};
  s.capacity.repair_time = units::Seconds(10);
  s.capacity.repair_exponential = false;
  return s;
}

sim::msg::Failure failure(long first, long nodes)
{
  sim::msg::Failure f;
  f.cause = 0;
  f.first_node = first;
  f.nodes = nodes;
  return f;
}

// A job's scheduler as the test sees it: it logs what it is told, and takes its nodes back.
Process job(const char* name, long table, Inbox<SchedulerMessage>& inbox, NodeKeeper& keeper, models::NodePool& pool,
            std::ostringstream& log)
{
  while (true) {
    auto m = co_await inbox.next(-1);
    if (const auto* f = std::get_if<sim::msg::Failure>(&*m)) {
      log << name << ":lost";
      for (long slot : keeper.take_lost(table, f->strike))
        log << ' ' << slot;
      log << '@' << sim::now() << ' ';
    } else if (const auto* r = std::get_if<sim::msg::Repaired>(&*m)) {
      if (!r->returned)
        pool.repaired(r->node);
      log << name << (r->returned ? ":told " : ":back ") << r->node << '@' << sim::now() << ' ';
    }
  }
}

struct KeeperFixture {
  scenario::Scenario s = keeper_scenario();
  models::NodePool pool{6, 2, models::LemonSpec{}, 1};
  NodeKeeper keeper{s, pool, 1};
  Inbox<SchedulerMessage> a, b;
  models::PolicyCounters ca, cb;
  KeeperFixture()
  {
    pool.place(pool.add_job(2), {0, 1});
    pool.place(pool.add_job(2), {2, 3});
  }
};

TEST(NodeKeeper, TellsEachJobItsOwnSlotsAndReturnsNodesThroughTheJobThatLostThem)
{
  const std::string log = run_processes([](sim::ProcessHost& host, std::ostringstream& out, sg4::Host*) {
    auto* k = new KeeperFixture;  // lives to the end of the child
    k->keeper.attach(0, k->a, k->ca);
    k->keeper.attach(1, k->b, k->cb);
    host.spawn("keeper", [k] { return k->keeper(); });
    host.spawn("a", [k, &out] { return job("a", 0, k->a, k->keeper, k->pool, out); });
    host.spawn("b", [k, &out] { return job("b", 1, k->b, k->keeper, k->pool, out); });
    host.spawn("strikes", [k, &out]() -> Process {
      co_await sim::sleep_until(1);
      k->keeper.strike(failure(1, 2));  // a rack: node 1 (A's slot 1) and node 2 (B's slot 0)
      out << "down:" << k->pool.in_repair() << ' ';
      co_await sim::sleep_until(20);
      out << "up:" << k->pool.in_repair() << " repairs:" << k->ca.repairs << ',' << k->cb.repairs << ",run "
          << k->keeper.run_counters().repairs << ' ';
    });
  });
  EXPECT_EQ(log, "down:2 a:lost 1@1 b:lost 0@1 a:back 1@11 b:back 2@11 up:0 repairs:1,1,run 0 ") << log;
}

TEST(NodeKeeper, ANodeNoJobHeldComesBackAtItsRepairTimeAndEveryJobIsTold)
{
  const std::string log = run_processes([](sim::ProcessHost& host, std::ostringstream& out, sg4::Host*) {
    auto* k = new KeeperFixture;
    k->keeper.attach(0, k->a, k->ca);
    k->keeper.attach(1, k->b, k->cb);
    k->keeper.set_spare_owner(0);  // A's reserve: its counters take the spares' failures
    host.spawn("keeper", [k] { return k->keeper(); });
    host.spawn("a", [k, &out] { return job("a", 0, k->a, k->keeper, k->pool, out); });
    host.spawn("b", [k, &out] { return job("b", 1, k->b, k->keeper, k->pool, out); });
    host.spawn("strikes", [k, &out]() -> Process {
      co_await sim::sleep_until(1);
      k->keeper.strike(failure(5, 1));  // an idle node: nobody loses a slot
      co_await sim::sleep_until(2);
      k->keeper.strike(failure(3, 1));  // B's slot 1; B ends before its repair is due
      k->keeper.detach(1);
      co_await sim::sleep_until(20);
      out << "idle:" << k->pool.idle() << " spare_failures:" << k->ca.spare_failures << " repairs:" << k->ca.repairs
          << ',' << k->cb.repairs << ' ';
      k->keeper.taken_back(0, 0);  // A took a node back: the others are told (none is left)
    });
  });
  // B is told its loss, then ends before the node is back: only A is told of it, and of node 5.
  EXPECT_EQ(log, "b:lost 1@2 a:told 5@11 a:told 3@12 idle:3 spare_failures:1 repairs:1,1 ") << log;
}

TEST(NodeKeeper, AppliesOnlyTheNodesItKeeps)
{
  const std::string log = run_processes([](sim::ProcessHost& host, std::ostringstream& out, sg4::Host*) {
    auto* k = new KeeperFixture;
    k->keeper.attach(0, k->a, k->ca);
    k->keeper.attach(1, k->b, k->cb);
    host.spawn("keeper", [k] { return k->keeper(); });
    host.spawn("a", [k, &out] { return job("a", 0, k->a, k->keeper, k->pool, out); });
    host.spawn("strikes", [k, &out]() -> Process {
      co_await sim::sleep_until(1);
      // A rack over nodes 0-3, of which the keeper keeps A's: B's are another's to apply.
      k->keeper.strike(failure(0, 4), [](long n) { return n < 2; });
      out << "down:" << k->pool.in_repair() << " b:" << k->pool.active(1) << ' ';
    });
  });
  EXPECT_EQ(log, "down:2 b:2 a:lost 0 1@1 a:back 0@11 a:back 1@11 ") << log;
}

}  // namespace
}  // namespace fleetsim::testing
