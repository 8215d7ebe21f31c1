#pragma once
// The report of a fleet run: DIR/summary.json ("kind": "fleet"), DIR/jobs.csv and DIR/timeline.csv
// (as `fleetsim run SCENARIO --out DIR` writes them for a scenario with a workload) turned into one
// self-contained HTML page: headline figures, utilisation over time, queueing delay by job size and
// its distribution, lost GPU-hours by cause, and the jobs that lost the most.

#include <string>
#include <vector>

namespace fleetsim::report {

/// True when DIR/summary.json says "kind": "fleet". Throws InputError when it is not valid JSON.
[[nodiscard]] bool is_fleet_dir(const std::string& dir);

/// The fleet's replayed jobs (summary.json "replayed_jobs"): each job's id and its output
/// directory relative to the fleet's ("jobs/<id>"), where a replay's files are.
struct ReplayedJobDir {
  std::string id;
  std::string dir;
};
[[nodiscard]] std::vector<ReplayedJobDir> replayed_job_dirs(const std::string& dir);

/// The HTML report of the fleet run in `dir`. Throws InputError on a missing or malformed file.
/// `job_pages`: for each replayed job (replayed_job_dirs order), the link to its own page, relative
/// to where this page is written (the report command writes those pages).
[[nodiscard]] std::string fleet_report_html(const std::string& dir, const std::vector<std::string>& job_pages = {});

}  // namespace fleetsim::report
