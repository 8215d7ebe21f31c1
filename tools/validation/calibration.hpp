#pragma once
// `fleetsim calibrate`'s pure parts: the free parameters it fits (KEY=LO:HI), the bounded search,
// and the rewrite of a hardware file's lines with the fitted values and their provenance. The
// command (tools/cli/calibrate_command.cpp) simulates the calibration cases; nothing here does.
// No SimGrid here.

#include "validation_case.hpp"

#include "models/core/units.hpp"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fleetsim::validation {

struct FreeParameter {
  std::string key;  // a scenario key, e.g. accelerator.gemm.kernel_overhead
  double low = 0;   // bounds of the search, SI
  double high = 0;
  std::optional<units::Dimension> dimension;  // a quantity's, to write the value with its unit
};

/// Parses "KEY=LO:HI" (LO and HI with the key's unit when it has one); nullopt with `error` set.
[[nodiscard]] std::optional<FreeParameter> parse_free_parameter(const std::string& text, std::string& error);

/// The value as the hardware file writes it: 4 significant digits, with the quantity's unit.
[[nodiscard]] std::string parameter_text(const FreeParameter& p, double si);
/// The value parameter_text writes, read back (what the written file will hold).
[[nodiscard]] double rounded(const FreeParameter& p, double si);

/// Minimises `objective` over the box of the parameters' bounds: `sweeps` rounds of coordinate
/// descent, each coordinate by golden-section search of `steps` narrowing steps, starting from
/// `start` (clamped into the box). Deterministic; returns the best point evaluated.
[[nodiscard]] std::vector<double> fit_parameters(const std::vector<FreeParameter>& params, std::vector<double> start,
                                                 const std::function<double(const std::vector<double>&)>& objective,
                                                 int sweeps = 2, int steps = 12);

/// One line of a hardware file to rewrite: `line` (1-based) holds `  leaf: value  # comment`.
struct LineUpdate {
  int line = 0;
  std::string value;
  std::string comment;
};

/// `text` with each updated line's value and comment replaced (its indentation and key kept), and the
/// provenance block -- the lines between "# --- calibration" and "# --- end calibration", replaced,
/// or else inserted before the first line that is not a comment -- set to `provenance`. Empty with
/// `error` set when a line does not hold a `key: value`.
[[nodiscard]] std::string rewrite_hardware_text(const std::string& text, const std::vector<LineUpdate>& updates,
                                                const std::vector<std::string>& provenance, std::string& error);

/// The case ids a hardware file's calibration block says it was fitted on ("#   <id>: ..." lines).
[[nodiscard]] std::vector<std::string> fitted_cases(const std::string& hardware_text);

/// What breaks "never fit on a validation case" in the hardware files of `hardware_dir`: a file
/// fitted on a case that is not a calibration case of `list` (or not in it), or a value marked
/// FITTED without a calibration block. One message each; empty when none.
[[nodiscard]] std::vector<std::string> calibration_problems(const CaseList& list, const std::string& hardware_dir);

}  // namespace fleetsim::validation
