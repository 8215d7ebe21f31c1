#include "unused_keys.hpp"

#include "simulator/scenario/diagnostics.hpp"
#include "simulator/scenario/key_usage.hpp"

#include <map>
#include <ostream>

namespace fleetsim::cli {

bool report_unused_across_points(const std::vector<std::string>& labels, const std::vector<scenario::Scenario>& points,
                                 std::ostream& err)
{
  struct Seen {
    const scenario::UnusedKey* first = nullptr;
    std::vector<std::string> at;
    bool by_override = true;  // at every point, a --set choice (the sweep's own sets) leaves it unread
  };
  std::vector<std::string> order;
  std::map<std::string, Seen> by_key;
  for (size_t i = 0; i < points.size(); ++i)
    for (const scenario::UnusedKey& u : points[i].unused_keys) {
      if (u.included)
        continue;
      Seen& seen = by_key[u.key];
      if (seen.first == nullptr) {
        seen.first = &u;
        order.push_back(u.key);
      }
      seen.at.push_back(labels[i].empty() ? "(base)" : labels[i]);
      seen.by_override = seen.by_override && u.by_override;
    }
  scenario::Diagnostics refused;  // reported as any bad input is (the Python module reads them as data)
  for (const std::string& key : order) {
    const Seen& seen = by_key[key];
    if (seen.at.size() == points.size() && !seen.by_override) {
      const std::string& where = seen.first->where;  // "file:line" or "command line"
      const size_t colon = where.rfind(':');
      const bool line = colon != std::string::npos && colon + 1 < where.size() &&
                        where.find_first_not_of("0123456789", colon + 1) == std::string::npos;
      refused.error({line ? where.substr(0, colon) : where, line ? std::stoi(where.substr(colon + 1)) : 0, 0},
                    scenario::unused_key_message(*seen.first) + " (at every point)");
      continue;
    }
    std::string at;
    for (const std::string& label : seen.at)
      at += (at.empty() ? "" : ", ") + label;
    err << "note: '" << key << "' (" << seen.first->where << ") is not used at " << seen.at.size() << " of "
        << points.size() << " points: " << at << " (there " << seen.first->reason << ")\n";
  }
  if (refused.empty())
    return true;
  scenario::report(refused, err);
  return false;
}

}  // namespace fleetsim::cli
