#pragma once
// Running many replicas of a scenario, each in its own process (SimGrid allows one simulation per
// process), for `compare` and `sweep`: the grid of points, and a pool of child processes.
//
// A replica's outputs are written into a temporary directory next to its final one and renamed into
// place when complete, so a directory that exists is a replica that finished: a sweep killed halfway
// and started again runs the missing replicas only.

#include "simulator/scenario/scenario.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace fleetsim::cli {

/// One dimension of the grid: one key, or several keys zipped (their lists vary together).
struct Axis {
  std::string key;                                                       // the first key
  std::vector<std::string> values;                                       // its values
  std::vector<std::pair<std::string, std::vector<std::string>>> zipped;  // further keys, same length
};

struct Point {
  std::vector<std::string> sets;  // key=value of this point
  std::string label;              // key=value,key=value
};

std::vector<std::string> split(const std::string& s, char sep);

/// The grid of every combination, the first axis varying slowest.
std::vector<Point> grid(const std::vector<Axis>& axes);

struct ReplicaTask {
  const scenario::Scenario* scenario = nullptr;
  std::uint64_t seed = 0;
  std::string dir;   // final directory of the replica's outputs
  size_t point = 0;  // the grid point it belongs to (for the progress line)
};

struct RunnerOptions {
  int jobs = 1;                    // replicas at once
  bool progress = false;           // a progress line on stderr, if stderr is a terminal
  bool traces = true;              // each replica's timeline.csv and events.csv (summary.json always)
  bool* internal_error = nullptr;  // set when a replica stopped on a broken invariant (exit code 3)
};

/// The text that identifies a set of runs (scenario path, overrides, axes, seeds): written to
/// DIR/runs.manifest by the first run into DIR.
std::string manifest_text(const std::string& scenario, const std::vector<std::string>& sets,
                          const std::vector<std::string>& varies, std::uint64_t first_seed, int seeds);

/// Creates DIR and its manifest, or checks that DIR holds the same set of runs (a rerun finishes the
/// missing replicas). Returns an error message when DIR holds a different set, or "".
std::string claim_output_dir(const std::string& dir, const std::string& manifest);

/// Runs the tasks whose directory does not exist yet, up to `jobs` at a time, each in a child
/// process; removes leftovers of interrupted runs first. Children die with the runner (a killed
/// sweep leaves no replica running). Returns an error message, or "".
std::string run_replicas(const std::vector<ReplicaTask>& tasks, const RunnerOptions& options);

}  // namespace fleetsim::cli
