#pragma once
// The report of a fleet run: DIR/summary.json ("kind": "fleet"), DIR/jobs.csv and DIR/timeline.csv
// (as `fleetsim run SCENARIO --out DIR` writes them for a scenario with a workload) turned into one
// self-contained HTML page: headline figures, utilisation over time, queueing delay by job size and
// its distribution, lost GPU-hours by cause, and the jobs that lost the most.

#include <string>

namespace fleetsim::report {

/// True when DIR/summary.json says "kind": "fleet". Throws InputError when it is not valid JSON.
[[nodiscard]] bool is_fleet_dir(const std::string& dir);

/// The HTML report of the fleet run in `dir`. Throws InputError on a missing or malformed file.
[[nodiscard]] std::string fleet_report_html(const std::string& dir);

}  // namespace fleetsim::report
