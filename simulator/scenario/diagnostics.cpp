#include "diagnostics.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <ostream>

namespace fleetsim::scenario {

std::string Diagnostic::to_string() const
{
  std::string out = where.file;
  if (where.line > 0) {
    out += ":" + std::to_string(where.line);
    if (where.column > 0)
      out += ":" + std::to_string(where.column);
  }
  return out + ": error: " + message;
}

namespace {

std::string& sink_path()
{
  static std::string path;
  return path;
}

}  // namespace

void set_diagnostics_sink(std::string path) { sink_path() = std::move(path); }

void report(const Diagnostics& d, std::ostream& err, const std::string& context)
{
  if (!context.empty())
    err << context << ":\n";
  err << d.to_string();
  if (sink_path().empty())
    return;
  std::ofstream sink(sink_path(), std::ios::app);
  for (const Diagnostic& x : d.items())
    sink << nlohmann::ordered_json{{"file", x.where.file},
                                   {"line", x.where.line},
                                   {"column", x.where.column},
                                   {"message", x.message},
                                   {"context", context}}
                .dump()
         << '\n';
}

void Diagnostics::error(SourceLocation where, std::string message)
{
  items_.push_back({std::move(where), std::move(message)});
}

void Diagnostics::sort_by_position()
{
  std::vector<std::string> files;
  auto rank = [&files](const Diagnostic& d) {
    const auto it = std::find(files.begin(), files.end(), d.where.file);
    return static_cast<size_t>(it - files.begin());
  };
  for (const Diagnostic& d : items_)
    if (rank(d) == files.size())
      files.push_back(d.where.file);
  std::stable_sort(items_.begin(), items_.end(), [&rank](const Diagnostic& a, const Diagnostic& b) {
    const size_t fa = rank(a), fb = rank(b);
    if (fa != fb)
      return fa < fb;
    if (a.where.line != b.where.line)
      return a.where.line < b.where.line;
    return a.where.column < b.where.column;
  });
}

std::string Diagnostics::to_string() const
{
  std::string out;
  for (const auto& d : items_)
    out += d.to_string() + "\n";
  return out;
}

namespace {

// Levenshtein distance of a and b, or `limit` when it is `limit` or more: the length difference is a
// lower bound, and so is the smallest entry of a row, so most candidates stop after a row or two.
// did_you_mean asks it of every parameter key for every unknown key: the full table took 70 % of
// fuzz_overrides' time under the fuzzers' instrumentation.
size_t edit_distance(const std::string& a, const std::string& b, size_t limit)
{
  if ((a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()) >= limit)
    return limit;
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    size_t row_min = cur[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min >= limit)
      return limit;
    std::swap(prev, cur);
  }
  return std::min(prev[b.size()], limit);
}

}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates)
{
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c, best_distance);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace fleetsim::scenario
