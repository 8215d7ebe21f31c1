#pragma once
// Runs simulations in forked children: SimGrid allows one simulation per process. Each child loads
// a scenario, runs it through the run layer's facade (a single job or a fleet) and sends back
// summary.json, timeline.csv and events.csv (a fleet's jobs.csv) through a pipe.
// Up to `parallel` children run at once.

#include "simulator/output/outcome_outputs.hpp"
#include "simulator/run/child_process.hpp"
#include "simulator/run/run.hpp"
#include "simulator/scenario/scenario_loader.hpp"

#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <deque>
#include <sstream>
#include <string>
#include <vector>

namespace fleetsim::testing {

struct ChildRun {
  std::string scenario;  // path
  std::vector<std::string> sets;
  std::uint64_t seed = 1;
  bool with_files = false;  // also send timeline.csv and events.csv
};

struct ChildResult {
  bool ok = false;
  std::string error;
  nlohmann::json summary;
  std::string summary_text;  // summary.json as written (wall_time_s included)
  std::string timeline;
  std::string events;  // a fleet's jobs.csv
};

inline std::string scenario_path(const std::string& name) { return std::string(FLEETSIM_SOURCE_DIR) + "/" + name; }

namespace detail {

// In the child: the run's outputs as one JSON text.
inline std::string child_main(const ChildRun& run)
{
  auto loaded = scenario::load_scenario_file(run.scenario, run.sets);
  nlohmann::json out;
  if (!loaded.scenario) {
    out["error"] = loaded.diagnostics.to_string();
  } else {
    const sim::Outcome result = sim::run(*loaded.scenario, run.seed);
    out["summary"] = sim::summary_json(*loaded.scenario, result).dump(2);
    if (run.with_files) {
      std::ostringstream t, e;
      sim::write_timeline_csv(t, result);
      sim::write_events_csv(e, result);
      out["timeline"] = t.str();
      out["events"] = e.str();
    }
  }
  return out.dump();
}

inline ChildResult collect(sim::ChildProcess& child)
{
  int status = 0;
  const auto text = child.finish(&status);
  ChildResult r;
  if (!text) {
    r.error = "child crashed or failed, status " + std::to_string(status);
    return r;
  }
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) {
    r.error = "child sent no valid result";
  } else if (j.contains("error")) {
    r.error = j["error"].get<std::string>();
  } else {
    r.ok = true;
    r.summary_text = j["summary"].get<std::string>();
    r.summary = nlohmann::json::parse(r.summary_text);
    if (j.contains("timeline")) {
      r.timeline = j["timeline"].get<std::string>();
      r.events = j["events"].get<std::string>();
    }
  }
  return r;
}

}  // namespace detail

inline std::vector<ChildResult> run_children(const std::vector<ChildRun>& runs, int parallel = 2)
{
  std::vector<ChildResult> results(runs.size());
  std::deque<std::pair<size_t, sim::ChildProcess>> active;
  auto drain_one = [&] {
    results[active.front().first] = detail::collect(active.front().second);
    active.pop_front();
  };
  for (size_t i = 0; i < runs.size(); ++i) {
    if (static_cast<int>(active.size()) >= parallel)
      drain_one();
    auto child = sim::ChildProcess::start([&run = runs[i]] { return detail::child_main(run); });
    if (!child) {
      results[i].error = "fork failed";
      continue;
    }
    active.emplace_back(i, std::move(*child));
  }
  while (!active.empty())
    drain_one();
  return results;
}

inline ChildResult run_child(const ChildRun& run) { return run_children({run}, 1).at(0); }

/// Runs `body` in a forked child and returns the text it produced (empty if the child died).
template <class Body>
std::string in_child(Body body)
{
  return sim::run_in_child([&body] { return std::string(body()); }).value_or(std::string());
}

/// summary.json text without its wall_time_s line (the one value that is not a function of the
/// scenario and the seed).
inline std::string without_wall_time(const std::string& summary)
{
  std::istringstream in(summary);
  std::string line, out;
  while (std::getline(in, line))
    if (line.find("\"wall_time_s\"") == std::string::npos)
      out += line + "\n";
  return out;
}

}  // namespace fleetsim::testing
