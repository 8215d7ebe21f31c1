#pragma once
// The run-level platform. At this resolution the fleet is not a set of 16,384 hosts: failures pick
// a component index, and the step time comes from the step model. What SimGrid resources model is
// what is shared and contended: the storage service that checkpoints are written to and reloaded
// from.
//
//    zone "fleet" (full)
//    +-----------------------+        +-------------------------------+
//    | host "control"        |        | host "storage"                |
//    |  scheduler, job,      |  Io    |  disk "checkpoint-store"      |
//    |  coordinator,         | =====> |  read  = storage.read_bandwidth |
//    |  injectors, calendar  |        |  write = storage.write_bandwidth|
//    +-----------------------+        +-------------------------------+
//
// Control messages are zero-byte transfers on the control host's loopback (zero latency).

#include "simulator/scenario/scenario.hpp"

#include <simgrid/s4u.hpp>

namespace fleetsim::sim {

struct Platform {
  simgrid::s4u::Host* control = nullptr;
  simgrid::s4u::Host* storage = nullptr;
  simgrid::s4u::Disk* checkpoint_store = nullptr;
};

/// Builds the platform in the current Engine. Call once, after the Engine is configured.
Platform build_platform(const scenario::Scenario& s);

}  // namespace fleetsim::sim
