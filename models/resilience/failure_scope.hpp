#pragma once
// Failure scopes (failure domains): what one failure takes down, as one interface with one file per
// scope (models/resilience/scopes/*.cpp) and a registry that maps the scenario's failures.causes.X.scope value
// to it. A Scope is a small handle into that registry; the built-ins have names in code
// (Scope::Gpu, ...) for the places that mean one of them.
//
// To add a scope: a file in models/resilience/scopes/ with a class deriving from FailureScopeModel, one line in
// registry() (failure_scope.cpp) or, outside the simulator's sources,
// register_failure_scope(); its tests; its paragraph in docs/extending.md.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fleetsim::models {

class NodePool;
class RandomStream;

struct FleetShape {
  long gpus = 1;
  int gpus_per_node = 8;
  int gpus_per_rack = 16;
  long gpus_per_pod = 0;  // 0: the whole fleet is one pod
};

/// A range of GPU ranks, numbered node by node, rack by rack, as the step fabric places them.
struct GpuRange {
  long first = 0;
  long count = 0;
};

/// One failure drawn by an injector: the component of the scope, and the nodes it takes down.
struct Strike {
  long index = 0;       // component of the scope ("gpu:1234" is index 1234 of the gpu scope)
  long first_node = 0;  // nodes [first_node, first_node + nodes) go to repair (none for job, storage)
  long nodes = 0;
};

/// How a failure of the scope reaches the job.
enum class ScopeEffect {
  Nodes,          // takes its nodes down; stops the job if one of them holds a job slot
  WholeJob,       // always stops the job (a software fault); takes no node
  StorageOutage,  // the storage service is down for the cause's repair time; the job's I/O fails
};

class FailureScopeModel {
public:
  virtual ~FailureScopeModel() = default;
  /// Components of the scope in the fleet (GPUs, nodes, racks, ...).
  [[nodiscard]] virtual long component_count(const FleetShape& fleet) const = 0;
  /// The GPUs a failure of component `index` takes down (its blast radius).
  [[nodiscard]] virtual GpuRange blast_radius(long index, const FleetShape& fleet) const = 0;
  /// Which component fails, drawn from `which` over `pool` (spares included); nullopt when the draw is
  /// thinned away (its node is already down, or beyond the current lemon weights: models/resilience/node_pool.hpp).
  [[nodiscard]] virtual std::optional<Strike> draw(RandomStream& which, const NodePool& pool,
                                                   const FleetShape& cluster) const = 0;
  [[nodiscard]] virtual ScopeEffect effect() const { return ScopeEffect::Nodes; }
  /// The failure is the node's own hardware: it counts towards lemon retirement.
  [[nodiscard]] virtual bool own_fault() const { return false; }
  /// The failure hangs the job rather than crashing it (detected by the collective watchdog by default).
  [[nodiscard]] virtual bool hangs() const { return false; }
};

/// A handle to a registered scope.
class Scope {
public:
  constexpr Scope() = default;
  constexpr explicit Scope(int id) : id_(id) {}
  static const Scope Gpu, Node, Link, Rack, Pod, Storage, Job;  // the built-ins

  [[nodiscard]] constexpr int id() const { return id_; }
  [[nodiscard]] const FailureScopeModel& model() const;
  [[nodiscard]] std::string_view name() const;
  constexpr bool operator==(const Scope& o) const = default;

private:
  int id_ = 0;
};

inline constexpr Scope Scope::Gpu{0};
inline constexpr Scope Scope::Node{1};
inline constexpr Scope Scope::Link{2};
inline constexpr Scope Scope::Rack{3};
inline constexpr Scope Scope::Pod{4};
inline constexpr Scope Scope::Storage{5};
inline constexpr Scope Scope::Job{6};

[[nodiscard]] std::string_view scope_name(Scope s);
[[nodiscard]] std::optional<Scope> scope_from_name(std::string_view name);
/// Every scope's name, built-ins first, in registration order.
[[nodiscard]] std::vector<std::string> scope_names();
/// Adds a scope (at static initialisation: a test, a plugin); returns its handle, or nullopt when
/// the name is taken.
std::optional<Scope> register_failure_scope(std::string name, std::unique_ptr<FailureScopeModel> model);

}  // namespace fleetsim::models
