#pragma once
// Typed conversion and validation of resolved scenario values (internal to the loader).

#include "diagnostics.hpp"
#include "scenario.hpp"
#include "scenario_loader.hpp"

#include <vector>

namespace fleetsim::scenario {

/// Converts every resolved value to its type, checks ranges and cross-key rules, and reports each
/// problem at the location of the value that causes it. A key the scenario's choices leave unread
/// is refused or listed as `unused` says (key_usage.hpp).
[[nodiscard]] Scenario build_scenario(const std::vector<ResolvedValue>& resolved, const std::string& file,
                                      Diagnostics& diags, UnusedKeys unused = UnusedKeys::Refuse);

}  // namespace fleetsim::scenario
