// requeue: the job goes back to the cluster's queue. After the failure is detected it gives back
// every node it holds, healthy or not, and waits, holding none, until the cluster's scheduler places
// it again (a fleet's scheduler, by its queue's order; a single job's cluster as soon as healthy nodes
// can hold all of it); then restart, and reload from storage. This is the closed-form fleet job's
// requeue (models/fleet) on the replay's runtime. Beside the restart policy it differs in what the
// job holds while it waits: nothing, so its wait is not charged GPU-hours (the fleet's idle GPUs
// are free for other jobs meanwhile).
#include "builtin_policies.hpp"

namespace fleetsim::models {
namespace {

class RequeuePolicy final : public RecoveryPolicy {
public:
  [[nodiscard]] bool requeues() const override { return true; }
  [[nodiscard]] std::vector<std::pair<std::string, long>> reported(const PolicyCounters& c) const override
  {
    return {{"requeues", c.requeues}};
  }
};

}  // namespace

RecoveryPolicyEntry requeue_policy_entry()
{
  return {"requeue", "give every node back and wait in the cluster's queue to be placed again, then restart",
          [] { return std::make_unique<RequeuePolicy>(); }};
}

}  // namespace fleetsim::models
