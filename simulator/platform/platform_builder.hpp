#pragma once
// The run-level platform. At this resolution the fleet is not a set of 16,384 hosts: failures pick
// a component index, and the step time comes from the step model. What SimGrid resources model is
// what is shared and contended: the storage system that checkpoints are written to, reloaded from
// and training data is read from (storage_system.hpp).
//
//    zone "fleet" (full)
//    +-----------------------+   +-------------------+        +---------------------------+
//    | host "control"        |   | host "client-job" | links  | host "storage"            |
//    |  scheduler, job,      |   |  (one per job:    | =====> |  servers, write/read caps |
//    |  injectors, calendar, |   |   its nodes' NICs)|        | host "storage-metadata"   |
//    |  storage channels     |   +-------------------+        +---------------------------+
//    +-----------------------+
//
// Control messages are semaphores between actors: no simulated network.

#include "simulator/scenario/scenario.hpp"

#include <simgrid/s4u.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fleetsim::sim {

class StorageSystem;

/// A storage client to build: a job's nodes.
struct StorageClient {
  std::string name;
  long nodes = 1;
};

struct Platform {
  simgrid::s4u::Host* control = nullptr;
  std::shared_ptr<StorageSystem> storage;  // clients in the order given
};

/// Builds the platform in the current Engine. Call once, after the Engine is configured.
/// `more`: builds further zones and clients before the platform's zone is sealed (a fleet's fabric,
/// its data readers).
Platform build_platform(const scenario::Scenario& s, const std::vector<StorageClient>& clients = {},
                        const std::function<void(simgrid::s4u::NetZone*, StorageSystem&)>& more = {});

}  // namespace fleetsim::sim
