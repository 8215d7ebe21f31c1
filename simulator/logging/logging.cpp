#include "logging.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <memory>

namespace fleetsim::log {
namespace {

double (*g_clock)() = nullptr;
std::vector<std::string> g_simgrid;

constexpr std::array<const char*, static_cast<size_t>(Component::Count_)> kNames = {
    "scenario", "scheduler", "failures", "checkpoint", "fabric", "sweep", "report", "run"};

// %* : the simulated time as "t=  3d 04:12:09.512" (days, then h:m:s), or "t=-" outside a run.
class SimClockFlag final : public spdlog::custom_flag_formatter {
public:
  void format(const spdlog::details::log_msg&, const std::tm&, spdlog::memory_buf_t& dest) override
  {
    char text[48];
    int n = 0;
    if (g_clock == nullptr) {
      n = std::snprintf(text, sizeof text, "t=-");
    } else {
      const double t = g_clock();
      const auto days = static_cast<long>(t / 86400);
      const double rest = t - static_cast<double>(days) * 86400;
      const int h = static_cast<int>(rest / 3600);
      const int m = static_cast<int>((rest - h * 3600) / 60);
      const double sec = rest - h * 3600 - m * 60;
      n = std::snprintf(text, sizeof text, "t=%3ldd %02d:%02d:%06.3f", days, h, m, sec);
    }
    dest.append(text, text + std::max(0, n));
  }
  [[nodiscard]] std::unique_ptr<custom_flag_formatter> clone() const override
  {
    return std::make_unique<SimClockFlag>();
  }
};

std::array<std::shared_ptr<spdlog::logger>, kNames.size()>& loggers()
{
  static std::array<std::shared_ptr<spdlog::logger>, kNames.size()> table = [] {
    std::array<std::shared_ptr<spdlog::logger>, kNames.size()> t;
    auto sink = std::make_shared<spdlog::sinks::stderr_sink_st>();
    for (size_t i = 0; i < t.size(); ++i) {
      t[i] = std::make_shared<spdlog::logger>(kNames[i], sink);
      t[i]->set_level(spdlog::level::off);
    }
    return t;
  }();
  return table;
}

}  // namespace

spdlog::logger& get(Component c) { return *loggers()[static_cast<size_t>(c)]; }

const char* name(Component c) { return kNames[static_cast<size_t>(c)]; }

std::string configure(const Settings& s)
{
  std::string level = s.level.empty() ? (s.file.empty() ? "off" : "info") : s.level;
  const spdlog::level::level_enum lv = spdlog::level::from_str(level);
  spdlog::sink_ptr sink;
  if (s.file.empty()) {
    sink = std::make_shared<spdlog::sinks::stderr_sink_st>();
  } else {
    try {
      // Appended to, never truncated (opened "ab", so O_APPEND): forked replicas of a sweep, shards
      // and MPI ranks given the same file add their lines to it, each line flushed whole.
      sink = std::make_shared<spdlog::sinks::basic_file_sink_st>(s.file, false);
    } catch (const spdlog::spdlog_ex& e) {
      return "cannot open log file '" + s.file + "': " + e.what();
    }
  }
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<SimClockFlag>('*').set_pattern("[%*] [%n] [%l] %v");
  sink->set_formatter(std::move(formatter));
  for (auto& l : loggers()) {
    l->sinks().assign(1, sink);
    l->set_level(lv);
    l->flush_on(spdlog::level::trace);  // every line reaches the file before a fork or a crash
  }
  g_simgrid = s.simgrid;
  if (lv == spdlog::level::trace)
    g_simgrid.insert(g_simgrid.begin(), "root.thresh:info");
  return "";
}

void set_clock(double (*clock)()) { g_clock = clock; }

const std::vector<std::string>& simgrid_settings() { return g_simgrid; }

void flush()
{
  for (auto& l : loggers())
    l->flush();
}

}  // namespace fleetsim::log
