#pragma once
// Checks of option values that CLI11 has no validator for, used by the command table (options.cpp).

#include <CLI/CLI.hpp>

#include <string>

namespace fleetsim::cli {

/// Digits only, within 64 bits: CLI11 would otherwise read "-3" into an unsigned seed by wrapping it.
extern const CLI::Validator kNonNegativeInteger;

/// A SimGrid log setting as xbt_log_control_set takes it, "CATEGORY.thresh:LEVEL" (or .fmt, .add).
[[nodiscard]] bool valid_simgrid_setting(const std::string& text);
extern const CLI::Validator kSimgridSetting;

}  // namespace fleetsim::cli
