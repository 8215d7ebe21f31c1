#include "scheduling_policy.hpp"

#include "models/core/named_registry.hpp"
#include "policies/builtin_policies.hpp"

#include <algorithm>
#include <optional>

namespace fleetsim::models::fleet {

void easy_backfill_behind(SchedulerOps& ops, long head, const std::vector<long>& queue)
{
  const Cluster& cluster = ops.cluster();
  if (cluster.free_gpus() == 0)
    return;  // nothing can start: skip the look-ahead (the common case in a saturated fleet)
  const double now = ops.now();
  const long head_gpus = ops.spec(head).gpus;
  // The shadow time, computed on the first candidate that fits: release the running jobs in order of
  // release until the head fits.
  bool looked_ahead = false;
  double shadow = std::numeric_limits<double>::infinity();
  std::optional<Cluster::Projection> at_shadow;
  auto look_ahead = [&] {
    looked_ahead = true;
    std::vector<RunningView> running = ops.running();
    std::stable_sort(running.begin(), running.end(),
                     [](const RunningView& a, const RunningView& b) { return a.release < b.release; });
    at_shadow = cluster.projection();
    for (const RunningView& r : running) {
      if (at_shadow->fits(head_gpus))
        break;
      if (r.placement != nullptr)
        at_shadow->give(*r.placement);
      shadow = r.release;
    }
    if (!at_shadow->fits(head_gpus))
      shadow = std::numeric_limits<double>::infinity();  // nothing running makes room: no reservation holds
    else
      at_shadow->take(head_gpus);  // what is left at the shadow time once the head has its GPUs
  };
  size_t tried = 0;
  bool behind = false;
  for (long job : queue) {
    if (job == head) {
      behind = true;
      continue;
    }
    if (!behind || tried++ >= ops.backfill_depth())
      continue;
    const long gpus = ops.spec(job).gpus;
    if (!cluster.fits(gpus))
      continue;
    if (!looked_ahead)
      look_ahead();
    const bool reserved = shadow < std::numeric_limits<double>::infinity();
    if (!reserved || now + ops.run_estimate(job) <= shadow) {
      ops.try_start(job);
    } else if (at_shadow->fits(gpus)) {
      at_shadow->take(gpus);
      ops.try_start(job);
    }
    if (cluster.free_gpus() == 0)
      return;
  }
}

namespace {

NamedRegistry<SchedulingPolicyEntry>& registry()
{
  static NamedRegistry<SchedulingPolicyEntry> r = [] {
    NamedRegistry<SchedulingPolicyEntry> reg;
    for (auto& e : builtin_scheduling_policies())
      reg.add(e.name, e);
    return reg;
  }();
  return r;
}

}  // namespace

const SchedulingPolicyEntry* find_scheduling_policy(std::string_view name) { return registry().find(name); }

std::vector<std::string> scheduling_policy_names() { return registry().names(); }

bool register_scheduling_policy(SchedulingPolicyEntry entry)
{
  std::string name = entry.name;
  return registry().add(std::move(name), std::move(entry));
}

}  // namespace fleetsim::models::fleet
