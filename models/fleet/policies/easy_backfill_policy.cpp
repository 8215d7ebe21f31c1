// EASY backfill (Lifka 1995; Mu'alem and Feitelson 2001): FIFO order, but when the first waiting
// job does not fit it gets a reservation, and later jobs may start out of order if they do not delay
// it (scheduling_policy.cpp: easy_backfill_behind).

#include "builtin_policies.hpp"

namespace fleetsim::models::fleet {
namespace {

class EasyBackfillPolicy final : public SchedulingPolicy {
public:
  void schedule(SchedulerOps& ops) const override
  {
    while (true) {
      const std::vector<long> head = ops.waiting(1);
      if (head.empty())
        return;
      if (!ops.try_start(head.front())) {
        easy_backfill_behind(ops, head.front(), ops.waiting(ops.backfill_depth() + 1));
        return;
      }
    }
  }
};

}  // namespace

SchedulingPolicyEntry easy_backfill_policy_entry()
{
  return {"easy_backfill", "FIFO with EASY backfill: later jobs start early if they do not delay the first waiting one",
          [] { return std::make_unique<EasyBackfillPolicy>(); },
          /*backfills=*/true};
}

}  // namespace fleetsim::models::fleet
