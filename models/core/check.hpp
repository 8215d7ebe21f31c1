#pragma once
// Internal checks: a programmer's assumption that, when false, means a bug in fleetsim (never bad
// input, never a simulated failure). Unlike the C assert macro, FLEETSIM_CHECK is active in every
// build type, Release included: NDEBUG does not remove it. A failed check prints
//   fleetsim: internal error: models/resilience/node_pool.cpp:235: check 'slots >= 0' failed: <message>
// runs the hook the command line installed (it removes an output directory the run created, so
// nothing half-written is left behind), and ends the process with kInternalErrorExitCode (3, the
// command line's "internal error", tools/cli/commands.hpp). It does not throw: a check may fail on
// an actor's stack, which an exception cannot leave (SimGrid aborts), or in a noexcept function.
//
// The cost is one predictable branch; the message and the condition's text are string literals,
// built only on failure. The few checks on a hot path say so in a comment where they stand.
//
// Accounting invariants, which compare two computations of the same quantity and report the run's
// scenario and seed, are models/core/invariant.hpp's check_invariant instead.

namespace fleetsim::models {

/// The process exit code of a failed internal check (and of a broken invariant).
inline constexpr int kInternalErrorExitCode = 3;

/// Reports a failed check (file, line, the condition's text, the message) and ends the process.
[[noreturn]] void check_failed(const char* file, int line, const char* condition, const char* message) noexcept;

/// Runs before the process ends on a failed check, e.g. to remove a half-written output directory.
/// One hook per process (the last one set); nullptr removes it. It must not fail a check itself.
using CheckFailureHook = void (*)() noexcept;
void set_check_failure_hook(CheckFailureHook hook) noexcept;

}  // namespace fleetsim::models

/// Checks `condition` in every build; on failure reports it with `message` (a string literal saying
/// what should have held) and ends the process with kInternalErrorExitCode.
#define FLEETSIM_CHECK(condition, message)                                                      \
  (__builtin_expect(static_cast<bool>(condition), 1)                                            \
       ? static_cast<void>(0)                                                                   \
       : ::fleetsim::models::check_failed(__FILE__, __LINE__, #condition, message))
