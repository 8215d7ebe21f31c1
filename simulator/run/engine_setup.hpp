#pragma once
// The Engine configuration every fleetsim simulation uses. Only simulator/run/ calls it.

#include <simgrid/s4u.hpp>

#include <memory>
#include <string_view>

namespace fleetsim::sim {

/// Creates the process's only Engine: CM02 flow model without cross-traffic (exact
/// latency + size/bandwidth arithmetic, the fastest model for many flows; shared/notes/simgrid.md)
/// and SimGrid's own logging silenced. Asserts if called twice.
std::unique_ptr<simgrid::s4u::Engine> make_engine();

/// Test-only: FLEETSIM_TEST_FAULT's value ("" when unset), so that tests can see a Release build stop
/// on a broken invariant (tests/tools/invariant_cli_test.cpp). Nothing else reads it:
///   drop_segment  (replay) a phase segment is removed from the trace before it is accounted;
///   open_phase    (replay) an actor opens a phase while the job's phase is open;
///   fleet_ledger  (fleet) an hour of GPU time is added to the fleet's productive time at the end.
[[nodiscard]] std::string_view test_fault();

}  // namespace fleetsim::sim
