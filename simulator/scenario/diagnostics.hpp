#pragma once
// Bad-input diagnostics: collected, never thrown past the loader, printed as
//   file:line:col: error: message
// (lower-case, no final period), exit code 2 at the CLI.

#include <iosfwd>
#include <string>
#include <vector>

namespace fleetsim::scenario {

struct SourceLocation {
  std::string file;  // scenario path as given, or "command line"
  int line = 0;      // 1-based; 0 when unknown
  int column = 0;    // 1-based; 0 when unknown
};

struct Diagnostic {
  SourceLocation where;
  std::string message;
  [[nodiscard]] std::string to_string() const;
};

class Diagnostics {
public:
  void error(SourceLocation where, std::string message);
  [[nodiscard]] bool empty() const { return items_.empty(); }
  [[nodiscard]] const std::vector<Diagnostic>& items() const { return items_; }
  [[nodiscard]] std::string to_string() const;  // one line per diagnostic
  /// In the order of the files (as they first appear) and of the lines and columns within each,
  /// so that the user reads them top to bottom whatever order the checks ran in.
  void sort_by_position();

private:
  std::vector<Diagnostic> items_;
};

/// Reports bad input: prints `d` to `err` (after a "`context`:" line when one is given) and, when a
/// sink is set, appends each diagnostic to that file as one JSON object per line (file, line,
/// column, message, context), so that a program driving the CLI (the Python module) reads them
/// without parsing the text.
void report(const Diagnostics& d, std::ostream& err, const std::string& context = "");
/// The file report() appends to ("" : none).
void set_diagnostics_sink(std::string path);

/// Closest candidate by edit distance, or "" when nothing is close enough to suggest.
[[nodiscard]] std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace fleetsim::scenario
