#include "failure_scope.hpp"

#include "scopes/builtin_scopes.hpp"

#include <deque>
#include <utility>

namespace fleetsim::models {
namespace {

struct Entry {
  std::string name;
  std::unique_ptr<FailureScopeModel> model;
};

std::deque<Entry>& registry()
{
  // The built-in scopes, one line each, in the order of their ids (Scope::Gpu = 0, ...). A deque:
  // registering one never moves the others (Scope::name() hands out views of their names).
  static std::deque<Entry> entries = [] {
    std::deque<Entry> v;
    v.push_back({"gpu", make_gpu_scope()});
    v.push_back({"node", make_node_scope()});
    v.push_back({"link", make_link_scope()});
    v.push_back({"rack", make_rack_scope()});
    v.push_back({"pod", make_pod_scope()});
    v.push_back({"storage", make_storage_scope()});
    v.push_back({"job", make_job_scope()});
    return v;
  }();
  return entries;
}

}  // namespace

const FailureScopeModel& Scope::model() const { return *registry().at(static_cast<size_t>(id_)).model; }

std::string_view Scope::name() const { return registry().at(static_cast<size_t>(id_)).name; }

std::string_view scope_name(Scope s) { return s.name(); }

std::optional<Scope> scope_from_name(std::string_view name)
{
  const auto& r = registry();
  for (size_t i = 0; i < r.size(); ++i)
    if (r[i].name == name)
      return Scope(static_cast<int>(i));
  return std::nullopt;
}

std::vector<std::string> scope_names()
{
  std::vector<std::string> names;
  for (const auto& e : registry())
    names.push_back(e.name);
  return names;
}

std::optional<Scope> register_failure_scope(std::string name, std::unique_ptr<FailureScopeModel> model)
{
  if (scope_from_name(name) || !model)
    return std::nullopt;
  registry().push_back({std::move(name), std::move(model)});
  return Scope(static_cast<int>(registry().size() - 1));
}

}  // namespace fleetsim::models
