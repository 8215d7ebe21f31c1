#pragma once
// The HTML around the charts: one self-contained page (inline CSS, no scripts, no external
// references), headline figures, legends and tables.

#include <string>
#include <utility>
#include <vector>

namespace fleetsim::report {

/// A complete HTML document: `title` (escaped here) and `body` (already HTML).
[[nodiscard]] std::string html_page(const std::string& title, const std::string& body);

/// A row of headline figures: label above value (both escaped here).
[[nodiscard]] std::string figures(const std::vector<std::pair<std::string, std::string>>& label_value);

struct LegendItem {
  std::string color;
  std::string label;
  bool dashed = false;  // a dashed line swatch instead of a filled square
};
[[nodiscard]] std::string legend(const std::vector<LegendItem>& items);

/// A table cell: text (escaped when rendered), with a colour swatch before it when `color` is set.
struct Cell {
  Cell(std::string t) : text(std::move(t)) {}  // NOLINT: implicit, so rows can be lists of strings
  Cell(const char* t) : text(t) {}             // NOLINT
  Cell(std::string t, std::string c) : text(std::move(t)), color(std::move(c)) {}
  /// A link: `text` pointing at `target` (a relative path, escaped like the text).
  static Cell link(std::string t, std::string target)
  {
    Cell c(std::move(t));
    c.href = std::move(target);
    return c;
  }
  std::string text;
  std::string color;
  std::string href;
};

/// A table; columns after the first are right-aligned (numbers).
[[nodiscard]] std::string table(const std::vector<std::string>& header, const std::vector<std::vector<Cell>>& rows,
                                const std::string& cls = "");

}  // namespace fleetsim::report
