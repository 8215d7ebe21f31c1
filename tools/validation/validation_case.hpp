#pragma once
// The published cases of `fleetsim reproduce`, as data: scenarios/validation/cases.yaml lists them
// (docs/validation.md describes the format). Reading the list checks everything that can be checked
// before a simulation runs -- kinds, metrics and their units, a formula's parameters, tolerances --
// and reports each problem as file:line:col with its key. No SimGrid here.

#include "simulator/scenario/diagnostics.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace fleetsim::scenario {
struct LoadResult;
}

namespace fleetsim::validation {

enum class CaseKind { Step, Replay, Formula };

/// Which side of the published value passes: both within the tolerance, or at least / at most it
/// (a published "more than 90%" is a lower bound).
enum class Bound { Both, Lower, Upper };

/// What a step case is for: `validation` (the default) compares the model with a published value it
/// was never fitted to; `calibration` may be used by `fleetsim calibrate` to fit a hardware file's
/// free parameters, and is reported apart. Only a step case can be a calibration case.
enum class Role { Validation, Calibration };

struct Tolerance {
  double value = 0;       // in the case's unit, or a fraction of the published value when relative
  bool relative = false;  // written "10%"
  std::string text;       // as written
};

struct ValidationCase {
  std::string id;      // e.g. narayanan21-t1-1.7b
  std::string title;   // one line
  std::string source;  // citation, with table or section
  CaseKind kind = CaseKind::Formula;
  std::string metric;  // step: a step metric; replay: a run metric; formula: the check's result
  std::string unit;    // the metric's unit ("%", "min", ...), the published value's too
  double published = 0;
  std::string published_text;  // as written
  Tolerance tolerance;
  Bound bound = Bound::Both;
  std::string notes;  // assumptions, caveats
  Role role = Role::Validation;
  std::string family;  // the source family errors are summarised by (default: the id up to its first '-')
  /// A validation step case that shares model and cluster with this calibration case, differing only
  /// in layout (case_inputs.hpp: layout_siblings), or "": reported as a group of its own.
  std::string shares_model_with;
  // step and replay
  std::string inputs;       // the scenario as written (relative to the cases file's directory)
  std::string inputs_path;  // the same, joined to that directory, to load
  std::string step_model;   // step: "" (the scenario's run.step_model), "analytic" or "simulated"
  int seeds = 0;            // replay: seeds 1..seeds
  // formula
  std::string check;                                        // the registered check it runs
  std::vector<std::pair<std::string, std::string>> params;  // its parameters as written, in order
  scenario::SourceLocation where;                           // the case's entry in the file
};

struct CaseList {
  std::string file;  // as given
  std::vector<ValidationCase> cases;
};

[[nodiscard]] const char* kind_name(CaseKind k);
[[nodiscard]] const char* bound_name(Bound b);
[[nodiscard]] const char* role_name(Role r);

/// Reads and checks the case list; problems go to `diags` (the list is then not to be used).
[[nodiscard]] CaseList read_case_list(const std::string& path, scenario::Diagnostics& diags);

/// The cases whose id matches one of `patterns`: a pattern with *, ? or [ is a glob (fnmatch), any
/// other is a prefix of the id. No pattern: every case. A pattern that matches nothing is an error
/// (with a did-you-mean hint) in `diags`.
[[nodiscard]] std::vector<const ValidationCase*> select_cases(const CaseList& list,
                                                              const std::vector<std::string>& patterns,
                                                              scenario::Diagnostics& diags);

/// True when `simulated` passes the case (its bound and tolerance).
[[nodiscard]] bool passes(const ValidationCase& c, double simulated);

/// The hardware keys that a case's scenario may not set itself: they come from the one hardware
/// file (scenarios/hardware/) that every case of a GPU generation includes, so that no case is
/// tuned on its own. Each entry is a dotted key, or a prefix ending in '.' for a whole section.
[[nodiscard]] const std::vector<std::string>& hardware_keys();
/// True when `key` is one of hardware_keys(), or names an efficiency in any section.
[[nodiscard]] bool is_hardware_key(const std::string& key);

/// Calls `visit` with each step case of `list` and its scenario, loaded; a case whose scenario does not
/// load is skipped and its diagnostics added to `problems` ("id: ...").
void for_each_loaded_step_case(const CaseList& list, std::vector<std::string>& problems,
                               const std::function<void(const ValidationCase&, const scenario::LoadResult&)>& visit);

/// What breaks "no per-case tuning" in the step cases of `list`, one message each: a case whose
/// scenario includes no file of `hardware_dir`, sets a hardware key itself, or uses another hardware
/// file than a case of the same GPU generation (accelerator.name). Empty when none.
[[nodiscard]] std::vector<std::string> hardware_problems(const CaseList& list, const std::string& hardware_dir);

}  // namespace fleetsim::validation
