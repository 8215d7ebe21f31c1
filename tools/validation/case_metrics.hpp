#pragma once
// What a validation case can measure, declared once per kind:
//  - step metrics: read from the step breakdown of the case's scenario (adding one is one line
//    of step_metrics() in case_metrics.cpp);
//  - formula checks: a models/ function evaluated at the case's parameters (one entry of
//    formula_checks());
//  - replay metrics: the run metrics of simulator/metrics (summary.json), or "summary.<path>" for
//    any number in a run's summary.json.
// No SimGrid here.

#include "models/step/step_model.hpp"
#include "models/core/units.hpp"
#include "simulator/scenario/scenario.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::validation {

struct StepMetric {
  const char* name;
  const char* unit;
  const char* description;
  double (*value)(const models::StepBreakdown& step, const scenario::Scenario& s);
  bool throughput = true;  // higher is faster (step time goes as 1 / value); false: a time
};

/// The error of a step case's simulated value as an error of step time: simulated / published - 1
/// for a time, published / simulated - 1 for a throughput (a 10 % higher MFU is a 9.1 % shorter step).
[[nodiscard]] double step_time_error(const StepMetric& m, double published, double simulated);

[[nodiscard]] const std::vector<StepMetric>& step_metrics();
[[nodiscard]] const StepMetric* find_step_metric(std::string_view name);

struct FormulaParam {
  const char* name;
  std::optional<units::Dimension> dimension;  // none: a plain number
  const char* description;
};

struct FormulaCheck {
  const char* name;
  const char* unit;         // of its result
  const char* description;  // what it evaluates, with the model function's name
  std::vector<FormulaParam> params;
  /// The result from the parameters (SI values, by name).
  double (*evaluate)(const std::map<std::string, double>& params);
};

[[nodiscard]] const std::vector<FormulaCheck>& formula_checks();
[[nodiscard]] const FormulaCheck* find_formula_check(std::string_view name);

/// Prefix of a replay metric read straight from summary.json by its dotted path.
inline constexpr std::string_view kSummaryPrefix = "summary.";

/// A replay metric's unit: the run metric's, "" for a summary path; nullopt when it is neither.
[[nodiscard]] std::optional<std::string> replay_metric_unit(const std::string& metric);

}  // namespace fleetsim::validation
