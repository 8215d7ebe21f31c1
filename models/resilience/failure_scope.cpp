#include "failure_scope.hpp"

#include "models/core/named_registry.hpp"
#include "scopes/builtin_scopes.hpp"

#include <utility>

namespace fleetsim::models {
namespace {

NamedRegistry<std::unique_ptr<FailureScopeModel>>& registry()
{
  // The built-in scopes, one line each, in the order of their ids (Scope::Gpu = 0, ...).
  static NamedRegistry<std::unique_ptr<FailureScopeModel>> r = [] {
    NamedRegistry<std::unique_ptr<FailureScopeModel>> v;
    v.add("gpu", make_gpu_scope());
    v.add("node", make_node_scope());
    v.add("link", make_link_scope());
    v.add("rack", make_rack_scope());
    v.add("pod", make_pod_scope());
    v.add("storage", make_storage_scope());
    v.add("job", make_job_scope());
    return v;
  }();
  return r;
}

}  // namespace

const FailureScopeModel& Scope::model() const { return *registry().at(static_cast<size_t>(id_)).value; }

std::string_view Scope::name() const { return registry().at(static_cast<size_t>(id_)).name; }

std::string_view scope_name(Scope s) { return s.name(); }

std::optional<Scope> scope_from_name(std::string_view name)
{
  const auto i = registry().index_of(name);
  return i ? std::optional<Scope>(Scope(static_cast<int>(*i))) : std::nullopt;
}

std::vector<std::string> scope_names() { return registry().names(); }

std::optional<Scope> register_failure_scope(std::string name, std::unique_ptr<FailureScopeModel> model)
{
  if (!model || !registry().add(std::move(name), std::move(model)))
    return std::nullopt;
  return Scope(static_cast<int>(registry().size() - 1));
}

}  // namespace fleetsim::models
