// FIFO gang scheduling: jobs start in submit order, each once all of its GPUs are free; a job that
// does not fit blocks every job behind it (head-of-line blocking), so no job is ever overtaken.

#include "builtin_policies.hpp"

namespace fleetsim::models::fleet {
namespace {

class FifoPolicy final : public SchedulingPolicy {
public:
  void schedule(SchedulerOps& ops) const override
  {
    while (true) {
      const std::vector<long> head = ops.waiting(1);
      if (head.empty() || !ops.try_start(head.front()))
        return;
    }
  }
};

}  // namespace

SchedulingPolicyEntry fifo_policy_entry()
{
  return {"fifo", "first come, first served gang scheduling: the first waiting job blocks the others",
          [] { return std::make_unique<FifoPolicy>(); },
          /*backfills=*/false};
}

}  // namespace fleetsim::models::fleet
