#pragma once
// The Engine configuration every fleetsim simulation uses. Only simulator/run/ calls it.

#include <simgrid/s4u.hpp>

#include <memory>

namespace fleetsim::sim {

/// Creates the process's only Engine: CM02 flow model without cross-traffic (exact
/// latency + size/bandwidth arithmetic, the fastest model for many flows; shared/notes/simgrid.md)
/// and SimGrid's own logging silenced. Asserts if called twice.
std::unique_ptr<simgrid::s4u::Engine> make_engine();

}  // namespace fleetsim::sim
