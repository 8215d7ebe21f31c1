#pragma once
// A replayed fleet job's own keys (docs/architecture.md, decision 45): under
// workload.jobs.<name>, a replayed job may give keys of the scenario's job sections -- `recovery`,
// `checkpoint`, `data`, `planned`, `parallelism` (its layout, hence its GPUs) -- which replace the
// fleet's for that job alone:
//
//   workload:
//     jobs:
//       a: {runtime: replay, recovery: {policy: restart}, checkpoint: {interval: 30min}}
//
// or `--set workload.jobs.a.recovery.policy=restart`. The loader takes them out of the fleet's
// values and builds the job's own scenario from the fleet's values with them in place
// (scenario_loader.cpp; FleetJobDecl::own).

#include "scenario_loader.hpp"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fleetsim::scenario {

/// The path, in the scenario's own keys, of a key under a fleet job that lies in one of the job
/// sections ("workload.jobs.a.recovery" -> "recovery", "workload.jobs.a.recovery.policy" ->
/// "recovery.policy"); nullopt for any other key.
[[nodiscard]] std::optional<std::string> job_section_path(const std::string& key);
/// The scenario key a replayed job's own value sets ("recovery.policy"), if `key` is one: a
/// declared key of a job section. ("workload.jobs.<name>.recovery", the closed-form job's own
/// key, is not one.)
[[nodiscard]] std::optional<std::string> job_section_key(const std::string& key);
/// The jobs' own values, taken out of `given`, by job name.
[[nodiscard]] std::map<std::string, std::vector<ResolvedValue>> take_job_values(std::vector<ResolvedValue>& given);

/// Every parameter in table order from the given values, defaults filled in (the loader's).
using Resolve = std::function<std::vector<ResolvedValue>(const std::vector<ResolvedValue>&)>;
/// Each replayed job with values of its own (`own`, by name) gets the scenario they make
/// (FleetJobDecl::own in `s`): the fleet's `given` values with the job's replacing them. An error
/// of that scenario, or a value of the job's own that its choices leave unread, is reported at the
/// job's key; a key of the fleet's that the job reads leaves `s.unused_keys`.
void build_job_scenarios(const std::vector<ResolvedValue>& given,
                         const std::map<std::string, std::vector<ResolvedValue>>& own, const std::string& file,
                         Scenario& s, Diagnostics& diags, const Resolve& resolve);
/// Each replayed job's layout (its own, or the fleet's) fits what the cluster schedules; if not, the
/// error is at the job's own `parallelism` keys, else at `cluster.gpus` or `spares.nodes`.
void check_replayed_fit(const std::vector<ResolvedValue>& resolved,
                        const std::map<std::string, std::vector<ResolvedValue>>& own, const std::string& file,
                        const Scenario& s, Diagnostics& diags);
/// A fleet whose jobs have own keys is built listing its unused keys: those no job reads either
/// are refused here, at their keys, as the fleet's own build would have.
void refuse_unused(const std::vector<ResolvedValue>& resolved, const Scenario& s, Diagnostics& diags);

}  // namespace fleetsim::scenario
