#include "job_sections.hpp"

#include "key_usage.hpp"
#include "parameter_table.hpp"
#include "scenario_builder.hpp"
#include "scenario_reader.hpp"

#include <algorithm>
#include <iterator>
#include <memory>

namespace fleetsim::scenario {

namespace {

const char* const kJobSections[] = {"recovery", "checkpoint", "data", "planned", "parallelism"};
const std::string kJobs = "workload.jobs.";

}  // namespace

std::optional<std::string> job_section_path(const std::string& key)
{
  if (key.rfind(kJobs, 0) != 0)
    return std::nullopt;
  const size_t dot = key.find('.', kJobs.size());
  if (dot == std::string::npos)
    return std::nullopt;
  std::string rest = key.substr(dot + 1);
  const std::string section = rest.substr(0, rest.find('.'));
  if (std::none_of(std::begin(kJobSections), std::end(kJobSections), [&](const char* s) { return section == s; }))
    return std::nullopt;
  return rest;
}

std::optional<std::string> job_section_key(const std::string& key)
{
  auto rest = job_section_path(key);
  if (!rest || rest->find('.') == std::string::npos || find_param(*rest) == nullptr)
    return std::nullopt;
  return rest;
}

std::map<std::string, std::vector<ResolvedValue>> take_job_values(std::vector<ResolvedValue>& given)
{
  std::map<std::string, std::vector<ResolvedValue>> out;
  std::vector<ResolvedValue> rest;
  for (ResolvedValue& v : given) {
    if (job_section_key(v.key))
      out[v.key.substr(kJobs.size(), v.key.find('.', kJobs.size()) - kJobs.size())].push_back(std::move(v));
    else
      rest.push_back(std::move(v));
  }
  given = std::move(rest);
  return out;
}

// Each replayed job with values of its own gets the scenario they make (FleetJobDecl::own): the
// scenario's values with the job's replacing them. An error of that scenario, or a value of its
// own that its choices leave unread, is reported at the job's key.
void build_job_scenarios(const std::vector<ResolvedValue>& given,
                         const std::map<std::string, std::vector<ResolvedValue>>& own, const std::string& file,
                         Scenario& s, Diagnostics& diags, const Resolve& resolve)
{
  for (const auto& job : own) {
    const std::string& name = job.first;  // (not a structured binding: clang 14 cannot capture one)
    const std::vector<ResolvedValue>& values = job.second;
    const auto d = std::find_if(s.workload.jobs.begin(), s.workload.jobs.end(),
                                [&name](const FleetJobDecl& j) { return j.name == name; });
    if (d == s.workload.jobs.end())
      continue;  // (its keys declare it: a fleet without it has failed already)
    if (!d->job.replayed) {
      for (const ResolvedValue& v : values)
        diags.error(v.where, "'" + v.key + "' sets a key of the job's own, which only a replayed job has (" +
                                 "workload.jobs." + name + ".runtime: replay); a closed-form job reads its " +
                                 "own keys (checkpoint_interval, recovery, ...)");
      continue;
    }
    std::vector<ResolvedValue> job_given = given;
    std::vector<ResolvedValue> top;
    for (const ResolvedValue& v : values)
      top.push_back({*job_section_key(v.key), v.text, v.where, false, v.included});
    for (const ResolvedValue& v : top) {  // the job's values replace the fleet's
      const auto same = std::find_if(job_given.begin(), job_given.end(),
                                     [&v](const ResolvedValue& g) { return g.key == v.key; });
      if (same != job_given.end())
        *same = v;
      else
        job_given.push_back(v);
    }
    Diagnostics job_diags;
    Scenario js = build_scenario(resolve(job_given), file, job_diags, UnusedKeys::List);
    for (const Diagnostic& e : job_diags.items())
      diags.error(e.where, "job '" + name + "' (its own keys, workload.jobs." + name + ".*): " + e.message);
    for (const UnusedKey& u : js.unused_keys)
      for (const ResolvedValue& v : values)
        if (*job_section_key(v.key) == u.key)
          diags.error(v.where, "'" + v.key + "' is not used: " + u.reason);
    // A key of the fleet's that this job reads is not unused.
    auto& unused = s.unused_keys;
    unused.erase(std::remove_if(unused.begin(), unused.end(),
                                [&js](const UnusedKey& u) {
                                  return std::none_of(js.unused_keys.begin(), js.unused_keys.end(),
                                                      [&u](const UnusedKey& j) { return j.key == u.key; });
                                }),
                 unused.end());
    d->own = std::make_shared<const Scenario>(std::move(js));
  }
}

// A replayed job runs its layout -- its own (workload.jobs.<name>.parallelism.*) or the fleet's --
// on whole nodes of what the cluster schedules (cluster.gpus less the spare nodes).
void check_replayed_fit(const std::vector<ResolvedValue>& resolved,
                        const std::map<std::string, std::vector<ResolvedValue>>& own, const std::string& file,
                        const Scenario& s, Diagnostics& diags)
{
  const long schedulable = s.fleet.gpus - s.capacity.spare_nodes * s.fleet.gpus_per_node;
  for (const FleetJobDecl& d : s.workload.jobs) {
    if (!d.job.replayed)
      continue;
    const models::ParallelLayout& l = (d.own ? *d.own : s).step.layout;
    const long gpus = static_cast<long>(l.tp) * l.cp * l.pp * l.dp;
    if (gpus <= schedulable)
      continue;
    bool reported = false;
    if (const auto values = own.find(d.name); values != own.end())
      for (const ResolvedValue& v : values->second)
        if (v.key.find(".parallelism.") != std::string::npos) {
          diags.error(v.where, "job '" + d.name + "' on its own layout needs " + std::to_string(gpus) +
                                   " GPUs, more than the cluster schedules (" + std::to_string(schedulable) +
                                   ": cluster.gpus less the spare nodes)");
          reported = true;
        }
    if (!reported)
      detail::Reader(resolved, file, diags)
          .error_at_first_given({"cluster.gpus", "spares.nodes"},
                                "fleet job '" + d.name + "' asks for " + std::to_string(gpus) +
                                    " GPUs, more than the cluster schedules (cluster.gpus less the spare nodes)");
  }
}

// With jobs' own keys the fleet's scenario is built listing its unused keys: those no job reads
// either are refused now, as the fleet's build would have.
void refuse_unused(const std::vector<ResolvedValue>& resolved, const Scenario& s, Diagnostics& diags)
{
  for (const UnusedKey& u : s.unused_keys) {
    if (u.included || u.by_override)
      continue;
    const auto v = std::find_if(resolved.begin(), resolved.end(),
                                [&u](const ResolvedValue& r) { return r.key == u.key; });
    if (v != resolved.end())
      diags.error(v->where, unused_key_message(u));
  }
}

}  // namespace fleetsim::scenario
