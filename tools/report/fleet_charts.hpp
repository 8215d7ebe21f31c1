#pragma once
// The fleet report's charts: utilisation over time (timeline.csv), queueing delay by job size
// (summary.json's wait_s_by_gpus) and the distribution of first waits (jobs.csv), each with the
// note and legend that say how to read it.

#include "fleet_data.hpp"

#include <string>

namespace fleetsim::report {

/// A duration for people: "0 s", "45.8 s", "3.02 min", "7.16 h", "2.5 d" (3 significant digits).
[[nodiscard]] std::string format_duration(double seconds);

/// GPUs training, allocated but not training, idle, spare and down as shares of the cluster,
/// stacked, with the waiting demand dashed.
[[nodiscard]] std::string utilisation_section(const FleetData& d);
/// p50, p90 and p99 first wait per job-size class as grouped bars, beside the table of each class.
[[nodiscard]] std::string wait_by_size_section(const FleetData& d);
/// The cumulative distribution of the first waits of the jobs that started, on a log time axis;
/// the jobs that did not wait are stated in the text (a log axis has no zero).
[[nodiscard]] std::string wait_cdf_section(const FleetData& d);

}  // namespace fleetsim::report
