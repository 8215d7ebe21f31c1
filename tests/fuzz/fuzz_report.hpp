#pragma once
// What the scenario fuzz targets (fuzz_scenario, fuzz_overrides) print of each input on request.

#include "simulator/scenario/scenario_loader.hpp"

#include <cstdio>
#include <cstdlib>

namespace fleetsim::fuzz {

/// FLEETSIM_FUZZ_VERBOSE=1 prints each input's outcome: how to check that a new seed loads.
inline void report(const scenario::LoadResult& r)
{
  static const bool verbose = std::getenv("FLEETSIM_FUZZ_VERBOSE") != nullptr;
  if (verbose)
    std::fprintf(stderr, "%s", r.scenario ? "loaded\n" : r.diagnostics.to_string().c_str());
}

}  // namespace fleetsim::fuzz
