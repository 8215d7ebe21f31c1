// restart: resubmit the job. Failed nodes are replaced from idle nodes (spares, repaired nodes);
// with none left the job waits for the repair pipeline; then restart, and reload from storage.
// Everything is RecoveryPolicy's default.
#include "builtin_policies.hpp"

namespace fleetsim::models {
namespace {

class RestartPolicy final : public RecoveryPolicy {};

}  // namespace

RecoveryPolicyEntry restart_policy_entry()
{
  return {"restart", "resubmit the whole job from the last checkpoint", [] { return std::make_unique<RestartPolicy>(); }};
}

}  // namespace fleetsim::models
