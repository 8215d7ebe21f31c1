#pragma once
// The keys a compare's or a sweep's points leave unread (Scenario::unused_keys, loaded with
// scenario::UnusedKeys::List): varying a choice may leave a base's key unused at some points, which
// run and are named; a key that no point reads is refused as `fleetsim run` refuses it.

#include "simulator/scenario/scenario.hpp"

#include <iosfwd>
#include <string>
#include <vector>

namespace fleetsim::cli {

/// Prints one line per key the scenario or --set gives that some points leave unread, naming those
/// points (`labels[i]` is point i's). Returns false after printing an error for each key that every
/// point leaves unread by the scenario's own choices (one that --set or the sweep's sets leave unread
/// everywhere is named, as `run` names it). Keys from included files (hardware, cluster) are only in
/// the summaries.
[[nodiscard]] bool report_unused_across_points(const std::vector<std::string>& labels,
                                               const std::vector<scenario::Scenario>& points, std::ostream& err);

}  // namespace fleetsim::cli
