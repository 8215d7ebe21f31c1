// job: a software failure of the job itself (a crash, a NCCL error): the whole job stops, no node
// is lost.
#include "builtin_scopes.hpp"

namespace fleetsim::models {
namespace {

class JobScope final : public FailureScopeModel {
public:
  [[nodiscard]] long component_count(const FleetShape&) const override { return 1; }
  [[nodiscard]] GpuRange blast_radius(long, const FleetShape& fleet) const override { return {0, fleet.gpus}; }
  [[nodiscard]] std::optional<Strike> draw(RandomStream&, const NodePool&, const FleetShape&) const override
  {
    return Strike{};
  }
  [[nodiscard]] ScopeEffect effect() const override { return ScopeEffect::WholeJob; }
};

}  // namespace

std::unique_ptr<FailureScopeModel> make_job_scope() { return std::make_unique<JobScope>(); }

}  // namespace fleetsim::models
