#pragma once
// The built-in failure scopes, one file each; registered by name in failure_scope.cpp.

#include "models/resilience/failure_scope.hpp"

#include <memory>
#include <optional>

namespace fleetsim::models {

[[nodiscard]] std::unique_ptr<FailureScopeModel> make_gpu_scope();
[[nodiscard]] std::unique_ptr<FailureScopeModel> make_node_scope();
[[nodiscard]] std::unique_ptr<FailureScopeModel> make_link_scope();
[[nodiscard]] std::unique_ptr<FailureScopeModel> make_rack_scope();
[[nodiscard]] std::unique_ptr<FailureScopeModel> make_pod_scope();
[[nodiscard]] std::unique_ptr<FailureScopeModel> make_storage_scope();
[[nodiscard]] std::unique_ptr<FailureScopeModel> make_job_scope();

/// Components of `per` GPUs each, the last one possibly partial.
[[nodiscard]] inline long components_of(const FleetShape& fleet, long per) { return (fleet.gpus + per - 1) / per; }
/// The GPUs of component `index` of `per` GPUs each, clipped to the fleet.
[[nodiscard]] GpuRange block_of(long index, long per, const FleetShape& fleet);
/// A node drawn uniformly over the cluster's nodes, or by lemon weight when the pool has lemons:
/// nullopt when thinned away (models/resilience/node_pool.hpp). `gpu`: draw one of its GPUs as the component.
[[nodiscard]] std::optional<Strike> draw_node(RandomStream& which, const NodePool& pool, const FleetShape& cluster,
                                              bool gpu);

}  // namespace fleetsim::models
