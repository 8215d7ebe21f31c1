#pragma once
// YAML scenario -> validated Scenario. All problems are collected as diagnostics (file:line:col),
// nothing is thrown at the caller, and a scenario with any error yields no Scenario at all.

#include "diagnostics.hpp"
#include "scenario.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::scenario {

/// One leaf of the fully resolved scenario: its dotted key, its text as written (with unit) and
/// where it came from.
struct ResolvedValue {
  std::string key;
  std::string text;
  SourceLocation where;
  bool is_default = false;
  bool included = false;  // written in a file the scenario includes (where.file), not in the scenario itself
};

struct LoadResult {
  std::optional<Scenario> scenario;     // set only when diagnostics is empty
  std::vector<ResolvedValue> resolved;  // every parameter, defaults included, in table order
  Diagnostics diagnostics;
  std::vector<std::string> includes;  // every file read through `include:`, nested ones too, in reading order
};

/// What the loader does with a key the scenario gives that its other choices leave unread
/// (key_usage.hpp): refuse it (an error at the key, naming the choice that leaves it unused and the
/// one that would use it), or list it in Scenario::unused_keys, as a compare's or a sweep's point
/// does. Listed either way: a key from an included file (a hardware or cluster file), and a key of
/// the scenario file that a choice changed by --set leaves unread (run.step_model=analytic on a
/// scenario that gives a simulated-step key: the command line's one-point compare).
enum class UnusedKeys { Refuse, List };

/// `overrides` are "dotted.key=value" strings (from --set), applied on top of the file. A top-level
/// `include: PATH` (or a list of paths, relative to the including file's directory) reads those
/// files first: their keys are defaults that the including file, then `overrides`, replace.
[[nodiscard]] LoadResult load_scenario_file(const std::string& path, const std::vector<std::string>& overrides = {},
                                            UnusedKeys unused = UnusedKeys::Refuse);
[[nodiscard]] LoadResult load_scenario_text(std::string_view yaml, const std::string& display_name,
                                            const std::vector<std::string>& overrides = {},
                                            UnusedKeys unused = UnusedKeys::Refuse);

/// The resolved scenario as YAML; defaults, and values from included files (FILE:LINE), marked with a comment.
/// With the built scenario, a key its choices leave unread (key_usage.hpp) is a comment, not a value,
/// so that the dump reloads: given, it would be refused.
[[nodiscard]] std::string dump_resolved(const std::vector<ResolvedValue>& resolved, const Scenario* built = nullptr);

/// True when the values declare a workload (a job under workload.jobs, or a workload.trace or
/// workload.generator key the scenario gives): the scenario is a fleet.
[[nodiscard]] bool gives_workload(const std::vector<ResolvedValue>& resolved);
/// True when the scenario declares a fleet job `runtime: replay` (which reads the single job's keys).
[[nodiscard]] bool gives_replayed_job(const std::vector<ResolvedValue>& resolved);

}  // namespace fleetsim::scenario
