#include "check.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace fleetsim::models {
namespace {

std::atomic<CheckFailureHook> g_hook{nullptr};

}  // namespace

void set_check_failure_hook(CheckFailureHook hook) noexcept { g_hook.store(hook); }

void check_failed(const char* file, int line, const char* condition, const char* message) noexcept
{
  // stdio only: no allocation, no exception, nothing that could fail a check again.
  std::fprintf(stderr,
               "fleetsim: internal error: %s:%d: check '%s' failed: %s\n"
               "fleetsim: this is a bug in fleetsim, not in the scenario. Please report it with the "
               "scenario file, the seed and this message.\n",
               file, line, condition, message);
  std::fflush(stderr);
  if (const CheckFailureHook hook = g_hook.exchange(nullptr); hook != nullptr)
    hook();
  // _Exit, not exit(): the check may fail on a SimGrid actor's stack, where running the static
  // destructors (SimGrid's engine among them) would hang or crash instead of exiting.
  std::_Exit(kInternalErrorExitCode);
}

}  // namespace fleetsim::models
