#pragma once
// The report of a sweep: DIR/results.csv (and DIR/sweep.json when present, for which parameter
// columns vary together) turned into one self-contained HTML page of metric-vs-parameter curves.

#include <string>
#include <vector>

namespace fleetsim::report {

/// How a sweep axis's values are placed along x.
struct XPlacement {
  enum class Kind { Linear, Log2, Categorical } kind = Kind::Categorical;
  std::vector<double> positions;  // numbers (Linear, Log2) or indices (Categorical)
  std::string unit;               // the common suffix of numeric values ("min", "" for plain numbers)
};

/// Numeric when every value is a number with one unit suffix: log2 when all are positive and
/// max / min >= 16, linear otherwise; else categorical, evenly spaced in the given order.
[[nodiscard]] XPlacement place_values(const std::vector<std::string>& values);

/// The HTML report of the sweep in `dir`. Throws InputError on a missing or malformed file.
[[nodiscard]] std::string sweep_report_html(const std::string& dir);

}  // namespace fleetsim::report
