#pragma once
// The fleet's part of a scenario: workload.jobs, workload.trace, workload.generator, scheduler
// (internal to the loader; docs/models/fleet.md, docs/models/workload.md).

#include "scenario.hpp"
#include "scenario_reader.hpp"

#include <string>
#include <vector>

namespace fleetsim::scenario::detail {

/// Reads the declared jobs, the trace (from the file, now), the generator and the scheduler.
void read_fleet(Reader& r, const std::vector<ResolvedValue>& resolved, const std::string& file, Scenario& s);
/// What a fleet scenario cannot combine yet, and declared jobs that cannot fit the cluster.
void check_fleet(Reader& r, const Scenario& s);

}  // namespace fleetsim::scenario::detail
