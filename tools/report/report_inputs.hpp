#pragma once
// Reading the files a report is made from: CSV tables (no quoting: fleetsim never writes commas
// inside a cell) and JSON documents. A malformed file throws InputError naming the file and line.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::report {

class InputError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class CsvTable {
public:
  /// Reads `path`: a header line, then rows with as many cells. Throws InputError.
  [[nodiscard]] static CsvTable read(const std::string& path);
  /// Parses `text` as the content of `name` (for messages). Throws InputError.
  [[nodiscard]] static CsvTable parse(const std::string& text, const std::string& name);

  [[nodiscard]] const std::vector<std::string>& header() const { return header_; }
  [[nodiscard]] std::size_t rows() const { return rows_.size(); }
  [[nodiscard]] const std::vector<std::string>& row(std::size_t i) const { return rows_[i]; }
  /// The index of column `name`; throws InputError when the header lacks it.
  [[nodiscard]] std::size_t column(const std::string& name) const;
  [[nodiscard]] bool has_column(const std::string& name) const;
  /// Cell (row, col) as a number; throws InputError (with its line number) when it is not one.
  [[nodiscard]] double number(std::size_t row, std::size_t col) const;
  /// True when cell (row, col) is empty (a sweep statistic with no value, e.g. a token target some
  /// replica did not reach).
  [[nodiscard]] bool blank(std::size_t row, std::size_t col) const { return rows_.at(row).at(col).empty(); }
  [[nodiscard]] const std::string& name() const { return name_; }
  /// "name:line" of data row `row` (the header is line 1), for messages.
  [[nodiscard]] std::string line(std::size_t row) const { return name_ + ":" + std::to_string(row + 2); }

private:
  std::string name_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

/// The whole file; throws InputError when it cannot be read.
[[nodiscard]] std::string read_text(const std::string& path);
/// Parses `path` as JSON, keeping key order; throws InputError.
[[nodiscard]] nlohmann::ordered_json read_json(const std::string& path);
/// j[key] as a number; throws InputError naming `what` (the file) when absent or not a number.
[[nodiscard]] double json_number(const nlohmann::ordered_json& j, const std::string& key, const std::string& what);
/// The number at a dotted path ("wait_s.p99": j["wait_s"]["p99"]); throws InputError naming the
/// path and `what` when a step is absent or the value is not a number.
[[nodiscard]] double json_number_at(const nlohmann::ordered_json& j, const std::string& path, const std::string& what);
/// A built-in metric of the registry (simulator/metrics/metric_registry.hpp) read at the path its
/// declaration gives, in its unit; a missing or non-numeric field is an InputError naming the path.
[[nodiscard]] double metric_at(const nlohmann::ordered_json& j, std::string_view metric, const std::string& what);
/// The string at a dotted path; `fallback` when it is absent or not a string.
[[nodiscard]] std::string json_string_at(const nlohmann::ordered_json& j, const std::string& path,
                                         const std::string& fallback);
/// j[key] as an object of numbers (name -> value, file order); throws InputError.
[[nodiscard]] std::vector<std::pair<std::string, double>> json_numbers(const nlohmann::ordered_json& j,
                                                                       const std::string& key, const std::string& what);

}  // namespace fleetsim::report
