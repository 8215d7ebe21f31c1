#pragma once
// What the report's section tests share: timeline.csv read and written back (with fewer columns, as
// older outputs had), and the pieces of a page a test compares with the files.

#include "fleetsim_process.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fleetsim::testing {

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

#ifdef FLEETSIM_BINARY
/// An output directory broken on purpose, one value at a time, and the report's refusal of it: exit
/// 2, the message, and no report.html. Each change starts from the files as the run wrote them.
class BrokenDir {
public:
  explicit BrokenDir(std::string dir)
      : dir_(std::move(dir)), timeline_(read_csv(dir_ + "/timeline.csv")), summary_(read_file(dir_ + "/summary.json"))
  {}
  [[nodiscard]] const Csv& timeline() const { return timeline_; }
  /// timeline.csv with one cell changed.
  void cell(std::size_t row, const std::string& column, const std::string& value)
  {
    Csv bad = timeline_;
    bad.rows.at(row).at(bad.col(column)) = value;
    write("timeline.csv", write_csv(bad, bad.header.size()));
    write("summary.json", summary_);
  }
  /// summary.json as `edit` leaves it.
  template <class Edit>
  void summary(Edit edit)
  {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(summary_);
    edit(j);
    write("timeline.csv", write_csv(timeline_, timeline_.header.size()));
    write("summary.json", j.dump(1));
  }
  void expect_error(const std::string& message) const
  {
    const auto r = fleetsim_command("report " + dir_);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.text.find(message), std::string::npos) << r.text;
    EXPECT_FALSE(std::filesystem::exists(dir_ + "/report.html"));
  }

private:
  void write(const std::string& name, const std::string& text) const
  {
    std::ofstream(dir_ + "/" + name, std::ios::binary) << text;
  }
  std::string dir_;
  Csv timeline_;
  std::string summary_;
};
#endif

}  // namespace fleetsim::testing
