// A job's processes on one SimGrid actor (simulator/actors/process.hpp): timers fire at their
// dates in the order they were set, an inbox's deadline passes or a post wakes its process (from
// another process or from a SimGrid actor, which must wake the sleeping host), steps return values
// to the process that awaits them, a process's exception comes out of the host's actor, and a
// blocking SimGrid wait runs on an actor of its own while the host goes on, and a group of processes
// (a job's) ends before the simulation does, each where it waits, never in the middle of a resume.
#include "process_harness.hpp"
#include "simulator/actors/message.hpp"
#include "simulator/actors/process.hpp"
#include "simulator/actors/run_context.hpp"
#include "simulator/platform/platform_builder.hpp"
#include "simulator/run/child_process.hpp"
#include "simulator/run/engine_setup.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

namespace fleetsim::testing {
namespace {

namespace sg4 = simgrid::s4u;
using sim::Inbox;
using sim::Process;
using sim::ProcessHost;
using sim::Task;

TEST(ProcessHost, TimersFireAtTheirDatesAndTiesInTheOrderTheyWereSet)
{
  const std::string log = run_processes([](ProcessHost& host, std::ostringstream& out, sg4::Host*) {
    host.spawn("late", [&out]() -> Process {
      co_await sim::sleep_until(2);
      out << "late@" << sim::now() << ' ';
    });
    host.spawn("first", [&out]() -> Process {
      co_await sim::sleep_until(1);
      out << "first@" << sim::now() << ' ';
    });
    host.spawn("second", [&out]() -> Process {
      co_await sim::sleep_until(1);
      out << "second@" << sim::now() << ' ';
      co_await sim::sleep_until(0.5);  // a date gone by: no wait
      out << "again@" << sim::now() << ' ';
    });
  });
  EXPECT_EQ(log, "first@1 second@1 again@1 late@2 ");
}

TEST(ProcessHost, AnInboxDeadlinePassesUnlessAPostComesFirst)
{
  struct Shared {
    Inbox<int> box;
  };
  auto shared = std::make_shared<Shared>();
  const std::string log = run_processes([shared](ProcessHost& host, std::ostringstream& out, sg4::Host*) {
    host.spawn("waiter", [shared, &out]() -> Process {
      auto m = co_await shared->box.next(3);  // nothing by 3: the deadline passes
      out << (m ? "got" : "timeout") << '@' << sim::now() << ' ';
      m = co_await shared->box.next(10);  // the post at 5 comes first
      out << "got" << *m << '@' << sim::now() << ' ';
      m = co_await shared->box.next(-1);  // the kept message first, then the queued one
      out << "got" << *m << '@' << sim::now() << ' ';
      m = co_await shared->box.next(-1);
      out << "got" << *m << '@' << sim::now() << ' ';
      m = co_await shared->box.next(20);
      out << (m ? "got" : "timeout") << '@' << sim::now() << ' ';
    });
    host.spawn("poster", [shared]() -> Process {
      co_await sim::sleep_until(5);
      shared->box.post(42);
      co_await sim::sleep_until(6);
      shared->box.post(2);
      shared->box.keep(1);
    });
  });
  EXPECT_EQ(log, "timeout@3 got42@5 got1@6 got2@6 timeout@20 ");
}

TEST(ProcessHost, AnActorsPostWakesTheSleepingHost)
{
  auto box = std::make_shared<Inbox<int>>();
  const std::string log = run_processes([box](ProcessHost& host, std::ostringstream& out, sg4::Host* control) {
    host.spawn("waiter", [box, &out]() -> Process {
      auto m = co_await box->next(50);
      out << "got" << *m << '@' << sim::now() << ' ';
      m = co_await box->next(-1);
      out << "got" << *m << '@' << sim::now() << ' ';
    });
    sg4::Actor::create("actor", control, [box] {
      sg4::this_actor::sleep_until(7);
      box->post(1);
      sg4::this_actor::sleep_until(8.5);
      box->post(2);
    })->daemonize();
  });
  EXPECT_EQ(log, "got1@7 got2@8.5 ");
}

Task<int> wait_and_double(int x)
{
  co_await sim::sleep_until(4);
  co_return 2 * x;
}

Task<> fail_at(double t)
{
  co_await sim::sleep_until(t);
  throw std::runtime_error("broken");
}

TEST(ProcessHost, StepsReturnToTheProcessThatAwaitsThem)
{
  const std::string log = run_processes([](ProcessHost& host, std::ostringstream& out, sg4::Host*) {
    host.spawn("caller", [&out]() -> Process {
      const int v = co_await wait_and_double(21);
      out << v << '@' << sim::now() << ' ';
    });
  });
  EXPECT_EQ(log, "42@4 ");
}

TEST(ProcessHost, AProcesssExceptionComesOutOfTheHostsActor)
{
  const std::string log = run_processes([](ProcessHost& host, std::ostringstream& out, sg4::Host*) {
    host.spawn("failing", []() -> Process { co_await fail_at(3); });
    host.spawn("later", [&out]() -> Process {
      co_await sim::sleep_until(5);
      out << "never ";
    });
  });
  EXPECT_EQ(log, "error:broken@3 ");
}

TEST(ProcessHost, AProcessSpawnedByAnActorDuringTheRunRunsBeforeTheActorResumes)
{
  const std::string log = run_processes([](ProcessHost& host, std::ostringstream& out, sg4::Host* control) {
    sg4::Actor::create("spawner", control, [&host, &out] {
      sg4::this_actor::sleep_until(12);
      host.spawn("late", [&out]() -> Process {
        out << "start@" << sim::now() << ' ';
        co_await sim::sleep_until(13);
        out << "end@" << sim::now() << ' ';
      });
      out << "spawned@" << sim::now() << ' ';
    })->daemonize();
  });
  // The spawn wakes the host, and SimGrid runs it before the spawner resumes (as it runs a new actor
  // before its creator).
  EXPECT_EQ(log, "start@12 spawned@12 end@13 ");
}

TEST(ProcessHost, ABlockingSimGridWaitRunsOnAnActorOfItsOwnWhileTheOtherProcessesGoOn)
{
  const std::string log = run_processes([](ProcessHost& host, std::ostringstream& out, sg4::Host*) {
    host.spawn("waiting", [&out]() -> Process {
      const bool done = co_await sim::on_actor(
          [] {
            sg4::this_actor::sleep_for(2.5);  // blocks the io-wait actor, not the host
            return true;
          },
          [&out](bool completed) { out << "after:" << completed << '@' << sim::now() << ' '; });
      out << "waited:" << done << '@' << sim::now() << ' ';
    });
    host.spawn("meanwhile", [&out]() -> Process {
      co_await sim::sleep_until(1);
      out << "meanwhile@" << sim::now() << ' ';
    });
  });
  EXPECT_EQ(log, "meanwhile@1 after:1@2.5 waited:1@2.5 ");
}

// A job's processes end when it does: a sleeper and a process waiting on its inbox with a deadline
// are ended where they wait (neither resumes, and their timers no longer count: the other group's
// process runs on alone); a process of another group is untouched.
TEST(ProcessHost, KillingAGroupEndsItsWaitingProcessesAndLeavesTheOthers)
{
  const std::string log = run_processes([](ProcessHost& host, std::ostringstream& out, sg4::Host*) {
    auto inbox = std::make_shared<Inbox<int>>();
    host.spawn(
        "sleeper",
        [&out]() -> Process {
          co_await sim::sleep_until(20);
          out << "sleeper-woke ";
        },
        1);
    host.spawn(
        "reader",
        [inbox, &out]() -> Process {
          const auto m = co_await inbox->next(30);
          out << "reader-got:" << m.value_or(-1) << ' ';
        },
        1);
    host.spawn(
        "other",
        [&host, inbox, &out]() -> Process {
          co_await sim::sleep_until(10);
          out << "alive:" << host.processes_in(1) << ' ';
          host.kill_group(1);
          co_await sim::sleep_until(11);  // the kill takes effect once this resume is over
          out << "alive:" << host.processes_in(1) << ' ';
          inbox->post(7);  // nobody waits any more: the message stays queued
          co_await sim::sleep_until(40);
          out << "other@" << sim::now() << ' ';
        },
        2);
  });
  EXPECT_EQ(log, "alive:2 alive:0 other@40 ");
}

// A process may end its own group, itself included: it runs on to its next wait and ends there.
TEST(ProcessHost, AProcessThatKillsItsOwnGroupEndsAtItsNextWait)
{
  const std::string log = run_processes([](ProcessHost& host, std::ostringstream& out, sg4::Host*) {
    host.spawn(
        "self",
        [&host, &out]() -> Process {
          co_await sim::sleep_until(5);
          host.kill_group(3);
          out << "still-running@" << sim::now() << ' ';
          co_await sim::sleep_until(6);
          out << "never ";
        },
        3);
    host.spawn("watcher", [&host, &out]() -> Process {
      co_await sim::sleep_until(7);
      out << "alive:" << host.processes_in(3) << ' ';
    });
  });
  EXPECT_EQ(log, "still-running@5 alive:0 ");
}

// A killed process whose blocking wait runs on an actor cannot be ended while the actor uses its
// frame: the wait completes (its `after` runs, on the actor), and the process ends instead of resuming.
TEST(ProcessHost, AKilledProcessOnAnActorEndsWhenItsWaitReturnsInsteadOfResuming)
{
  const std::string log = run_processes([](ProcessHost& host, std::ostringstream& out, sg4::Host*) {
    host.spawn(
        "transfer",
        [&out]() -> Process {
          co_await sim::on_actor(
              [] {
                sg4::this_actor::sleep_for(4);
                return true;
              },
              [&out](bool) { out << "after@" << sim::now() << ' '; });
          out << "never ";
        },
        4);
    host.spawn("killer", [&host, &out]() -> Process {
      co_await sim::sleep_until(1);
      host.kill_group(4);
      co_await sim::sleep_until(2);
      out << "alive@2:" << host.processes_in(4) << ' ';
      co_await sim::sleep_until(5);
      out << "alive@5:" << host.processes_in(4) << ' ';
    });
  });
  EXPECT_EQ(log, "alive@2:1 after@4 alive@5:0 ");
}

// A process readied (a message posted to it) but not yet resumed when its group is killed is not
// resumed.
TEST(ProcessHost, AKilledProcessThatWasReadyIsNotResumed)
{
  const std::string log = run_processes([](ProcessHost& host, std::ostringstream& out, sg4::Host*) {
    auto inbox = std::make_shared<Inbox<int>>();
    host.spawn(
        "reader",
        [inbox, &out]() -> Process {
          const auto m = co_await inbox->next(-1);
          out << "got:" << m.value_or(-1) << ' ';
        },
        5);
    host.spawn("poster-then-killer", [&host, inbox, &out]() -> Process {
      co_await sim::sleep_until(3);
      inbox->post(1);      // the reader is ready ...
      host.kill_group(5);  // ... and killed before its turn
      co_await sim::sleep_until(4);
      out << "alive:" << host.processes_in(5) << ' ';
    });
  });
  EXPECT_EQ(log, "alive:0 ");
}

}  // namespace
}  // namespace fleetsim::testing
