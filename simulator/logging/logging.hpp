#pragma once
// Logging: one spdlog logger per component, all writing to one sink (stderr, or --log-file), each line
// stamped with the simulated clock when a simulation runs:
//
//   [t=  3d 04:12:09.512] [scheduler] [debug] recovery: detection for 180 s after faulty_gpu on gpu:4711
//
// Logging is off unless asked for (--log-level), so the terminal output of every command is
// unchanged. FLEETSIM_LOG checks the level before it formats anything: a disabled log line costs one
// load and one compare, and its arguments are never evaluated. No SimGrid here: the simulator hands
// its clock in (set_clock), and SimGrid's own settings are only carried (simgrid_settings).

#include <spdlog/spdlog.h>

#include <string>
#include <vector>

namespace fleetsim::log {

enum class Component { Scenario, Scheduler, Failures, Checkpoint, Fabric, Sweep, Report, Run, Count_ };

/// The component's logger (a reference into a static table: no lookup by name).
[[nodiscard]] spdlog::logger& get(Component c);
[[nodiscard]] const char* name(Component c);

struct Settings {
  std::string level;                 // off|error|warn|info|debug|trace; "" = off (info with a file)
  std::string file;                  // "" = stderr
  std::vector<std::string> simgrid;  // SimGrid log settings (xbt_log_control_set), applied with the Engine
};

/// Sets every logger's level and sink. Returns "" or an error (a file that cannot be opened).
[[nodiscard]] std::string configure(const Settings& s);

/// The simulated clock for the stamp, set when the Engine exists (before: "t=-"; after the run, the
/// clock stays at the end of the window).
void set_clock(double (*clock)());

/// SimGrid log settings to apply once its Engine exists: --simgrid-log, and root at info under trace.
[[nodiscard]] const std::vector<std::string>& simgrid_settings();

/// Writes everything buffered (before a fork, and at the end).
void flush();

}  // namespace fleetsim::log

/// Logs through the component's logger if level `lvl` is enabled; the arguments are evaluated only then.
/// Built with -DFLEETSIM_LOGGING=OFF (CMake), the log lines are compiled out: what the benchmark
/// compares with to measure what logging costs when it is off (docs/benchmarks.md).
#ifdef FLEETSIM_NO_LOGGING
#define FLEETSIM_LOG(component, lvl, ...)                                                                 \
  do {                                                                                                    \
    if constexpr (false)                                                                                  \
      ::fleetsim::log::get(::fleetsim::log::Component::component).log(::spdlog::level::lvl, __VA_ARGS__); \
  } while (0)
#else
#define FLEETSIM_LOG(component, lvl, ...)                                                 \
  do {                                                                                    \
    auto& fleetsim_logger_ = ::fleetsim::log::get(::fleetsim::log::Component::component); \
    if (fleetsim_logger_.should_log(::spdlog::level::lvl)) [[unlikely]]                   \
      fleetsim_logger_.log(::spdlog::level::lvl, __VA_ARGS__);                            \
  } while (0)
#endif
