#include "diagnostics.hpp"

#include <algorithm>

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

void Diagnostics::error(SourceLocation where, std::string message)
{
  items_.push_back({std::move(where), std::move(message)});
}

std::string Diagnostics::to_string() const
{
  std::string out;
  for (const auto& d : items_)
    out += d.to_string() + "\n";
  return out;
}

namespace {

size_t edit_distance(const std::string& a, const std::string& b)
{
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t subst = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates)
{
  std::string best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

}  // namespace fleetsim::scenario
