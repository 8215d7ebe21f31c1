#pragma once
// What the report's section tests share: timeline.csv read and written back (with fewer columns, as
// older outputs had), and the pieces of a page a test compares with the files.

#include "fleetsim_process.hpp"

#include <algorithm>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

namespace fleetsim::testing {

struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  [[nodiscard]] std::size_t col(const std::string& name) const
  {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  }
};

inline Csv read_csv(const std::string& path)
{
  Csv csv;
  std::istringstream in(read_file(path));
  std::string line;
  std::getline(in, line);
  csv.header = fleetsim::testing::csv_cells(line);
  while (std::getline(in, line))
    csv.rows.push_back(fleetsim::testing::csv_cells(line));
  return csv;
}

inline std::string write_csv(const Csv& csv, std::size_t keep_columns)
{
  std::string out;
  const auto line = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < std::min(keep_columns, cells.size()); ++i)
      out += (i > 0 ? "," : "") + cells[i];
    out += "\n";
  };
  line(csv.header);
  for (const auto& r : csv.rows)
    line(r);
  return out;
}

// The text between `from` and the next `to` after it.
inline std::string between(const std::string& s, const std::string& from, const std::string& to)
{
  const auto a = s.find(from);
  if (a == std::string::npos)
    return "";
  const auto b = s.find(to, a);
  return s.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

// The percentage cells ("45.4%") of a table's rows but the last (the total).
inline std::vector<std::string> shares_of(const std::string& table)
{
  std::vector<std::string> out;
  for (std::size_t at = table.find("<tr><td>"); at != std::string::npos; at = table.find("<tr><td>", at + 1)) {
    const std::string row = table.substr(at, table.find("</tr>", at) - at);
    const auto pct = row.find("%</td>");
    if (pct == std::string::npos)
      continue;
    const auto begin = row.rfind("<td>", pct) + 4;
    out.push_back(row.substr(begin, pct + 1 - begin));
  }
  if (!out.empty())
    out.pop_back();
  return out;
}

}  // namespace fleetsim::testing
