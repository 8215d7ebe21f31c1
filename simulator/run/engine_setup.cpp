#include "engine_setup.hpp"

#include "models/core/check.hpp"

#include "simulator/logging/logging.hpp"

#include <xbt/log.h>


// Built with AddressSanitizer (FLEETSIM_SANITIZE=address,..., docs/hardening.md)?
#if defined(__SANITIZE_ADDRESS__)
#define FLEETSIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FLEETSIM_ASAN 1
#endif
#endif

namespace fleetsim::sim {

std::unique_ptr<simgrid::s4u::Engine> make_engine()
{
  [[maybe_unused]] static bool created = false;
  FLEETSIM_CHECK(!created, "SimGrid allows one simulation per process");
  created = true;
  // SimGrid logs nothing unless something is wrong; fleetsim reports through its own outputs.
  xbt_log_control_set("root.thresh:critical");
  // ... unless asked for: --simgrid-log SETTING, or --log-level trace (simulator/logging/logging.hpp).
  for (const std::string& setting : log::simgrid_settings())
    xbt_log_control_set(setting.c_str());
  static char arg0[] = "fleetsim";
  static char model[] = "--cfg=network/model:CM02";
  static char xtraffic[] = "--cfg=network/crosstraffic:0";
#ifndef FLEETSIM_ASAN
  // Actors here are shallow (no recursion, a few frames of SimGrid); 8 MiB stacks only cost the
  // mmap and page-table churn of creating 16k of them.
  static char stack[] = "--cfg=contexts/stack-size:64";
  static char* argv[] = {arg0, model, xtraffic, stack, nullptr};
  int argc = 4;
#else
  // Debian's libsimgrid is not built with ASan, so its raw contexts switch stacks behind ASan's back:
  // the first exception thrown on an actor's stack reports a stack-buffer-overflow in ASan's own
  // sigaltstack call, and stale stack poisoning follows. On thread contexts every actor's stack is
  // a thread's, which ASan follows. Same event order and outputs; slower, and frames are larger.
  static char factory[] = "--cfg=contexts/factory:thread";
  static char stack[] = "--cfg=contexts/stack-size:1024";
  static char* argv[] = {arg0, model, xtraffic, factory, stack, nullptr};
  int argc = 5;
#endif
  auto engine = std::make_unique<simgrid::s4u::Engine>(&argc, argv);
  log::set_clock(&simgrid::s4u::Engine::get_clock);  // log lines carry the simulated time from now on
  return engine;
}

std::string_view test_fault()
{
  const char* fault = std::getenv("FLEETSIM_TEST_FAULT");
  return fault == nullptr ? std::string_view() : std::string_view(fault);
}

}  // namespace fleetsim::sim
