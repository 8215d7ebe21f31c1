#pragma once
// The results of `fleetsim reproduce`, as the terminal table, validation.csv and the generated
// docs/validation.md: pure functions of the cases and their simulated values, so the same results
// give the same bytes. No SimGrid here.

#include "validation_case.hpp"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace fleetsim::validation {

struct CaseResult {
  const ValidationCase* c = nullptr;
  double simulated = 0;  // replay: the mean over the seeds
  double ci95 = 0;       // replay: half-width of the mean's 95% confidence interval
  int samples = 1;       // replay: seeds
  std::string detail;    // how it was obtained (step model, step time, ...), for the page
  bool pass = false;
};

/// A formula case's value: its check evaluated at its parameters (units parsed); nullopt after
/// recording a bad parameter in `diags`.
[[nodiscard]] std::optional<double> evaluate_formula(const ValidationCase& c, scenario::Diagnostics& diags);

/// simulated - published, and the same relative to |published| (NaN when published is 0).
[[nodiscard]] double case_error(const CaseResult& r);
[[nodiscard]] double case_relative_error(const CaseResult& r);

/// A step case's error as an error of step time (case_metrics.hpp's step_time_error); NaN for the
/// other kinds.
[[nodiscard]] double step_time_error(const CaseResult& r);

/// Step-time errors summarised over the step cases of one role and family.
struct FamilyError {
  Role role = Role::Validation;
  std::string family;  // "all" for the role's every step case
  int cases = 0;
  double mean_absolute = 0;  // mean of |error| (MAPE as a fraction)
  double mean = 0;           // mean signed error: the family's bias (negative: the model is too fast)
  double largest = 0;        // the error of largest magnitude, signed
};
/// Validation first, then calibration; within each, the families in the order of their first case,
/// then "all", and for validation "all but siblings": every case but those that share model and
/// cluster with a calibration case (ValidationCase::shares_model_with), when there are any.
[[nodiscard]] std::vector<FamilyError> family_errors(const std::vector<CaseResult>& results);

/// The terminal table: one row per case, then the total line.
[[nodiscard]] std::string result_table(const std::vector<CaseResult>& results);

/// validation.csv: id, kind, metric, unit, published, bound, tolerance, simulated, ci95, samples,
/// error, relative_error, result, role, family, step_time_error.
void write_result_csv(std::ostream& o, const std::vector<CaseResult>& results);

/// docs/validation.md. `cases_file` and `inputs_dir` as they should read on the page (relative to
/// the repository's root).
[[nodiscard]] std::string validation_page(const std::vector<CaseResult>& results, const std::string& cases_file,
                                          const std::string& inputs_dir);

}  // namespace fleetsim::validation
