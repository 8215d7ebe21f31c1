#pragma once
// The carbon part of a scenario (internal to the loader): power.carbon.* (the grid's hourly profile,
// read from its CSV now), power.embodied.*, power.fleet_compute_fraction and the checks of
// scheduler.carbon_aware (docs/models/energy.md).

#include "scenario.hpp"
#include "scenario_reader.hpp"

#include <string>

namespace fleetsim::scenario::detail {

/// Reads the carbon keys into s.carbon; `file` is the scenario's path (the profile is relative to it).
void read_carbon(Reader& r, const std::string& file, Scenario& s);

}  // namespace fleetsim::scenario::detail
