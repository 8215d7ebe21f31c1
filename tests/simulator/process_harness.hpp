#pragma once
// A child process with one SimGrid host actor running a ProcessHost until 100 s of simulated time
// (SimGrid allows one simulation per process): the harness of the process tests.
#include "simulator/actors/process.hpp"
#include "simulator/actors/run_context.hpp"
#include "simulator/platform/platform_builder.hpp"
#include "simulator/run/child_process.hpp"
#include "simulator/run/engine_setup.hpp"

#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace fleetsim::testing {

namespace sg4 = simgrid::s4u;

// Runs `setup(host, log, control)` in a child with one host actor, until the actor `horizon` ends at
// 100 s; returns what the processes wrote to `log`.
inline std::string run_processes(const std::function<void(sim::ProcessHost&, std::ostringstream&, sg4::Host*)>& setup)
{
  auto child = sim::ChildProcess::start([&] {
    auto engine = sim::make_engine();
    scenario::Scenario s;
    const sim::Platform platform = sim::build_platform(s, {});
    std::ostringstream log;
    sim::ProcessHost host;
    setup(host, log, platform.control);
    sg4::Actor::create("processes", platform.control, [&host, &log] {
      try {
        host.run();
      } catch (const std::exception& e) {
        log << "error:" << e.what() << '@' << sim::now() << ' ';
      }
    })->daemonize();
    sg4::Actor::create("horizon", platform.control, [] { sg4::this_actor::sleep_until(100); });
    engine->run();
    return log.str();
  });
  if (!child)
    return "no child";
  int status = 0;
  const auto text = child->finish(&status);
  return text ? *text : "child failed";
}

}  // namespace fleetsim::testing
