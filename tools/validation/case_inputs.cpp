#include "case_inputs.hpp"

#include "simulator/scenario/scenario_loader.hpp"

#include <algorithm>

namespace fleetsim::validation {
namespace {

struct Inputs {
  const ValidationCase* c;
  std::map<std::string, std::string> all;
  std::map<std::string, std::string> without_layout;
};

std::vector<Inputs> step_inputs(const CaseList& list, std::vector<std::string>* problems)
{
  std::vector<Inputs> out;
  for (const ValidationCase& c : list.cases) {
    if (c.kind != CaseKind::Step)
      continue;
    std::string error;
    Inputs in{&c, resolved_inputs(c, error), {}};
    if (!error.empty()) {
      if (problems != nullptr)
        problems->push_back(c.id + ": " + error);
      continue;
    }
    for (const auto& [k, v] : in.all)
      if (!is_layout_key(k))
        in.without_layout.emplace(k, v);
    out.push_back(std::move(in));
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> resolved_inputs(const ValidationCase& c, std::string& error)
{
  std::vector<std::string> sets;
  if (!c.step_model.empty())
    sets.push_back("run.step_model=" + c.step_model);
  const auto loaded = scenario::load_scenario_file(c.inputs_path, sets);
  if (!loaded.diagnostics.empty()) {
    error = loaded.diagnostics.to_string();
    return {};
  }
  std::map<std::string, std::string> out;
  for (const scenario::ResolvedValue& v : loaded.resolved)
    if (v.key != "name" && v.key != "description")
      out.emplace(v.key, v.text);
  return out;
}

bool is_layout_key(const std::string& key)
{
  return key.rfind("parallelism.", 0) == 0 || key == "model.micro_batch_size" || key == "model.global_batch_tokens" ||
         key == "cluster.gpus";
}

std::vector<std::string> shared_input_problems(const CaseList& list)
{
  std::vector<std::string> problems;
  const std::vector<Inputs> inputs = step_inputs(list, &problems);
  for (const Inputs& v : inputs) {
    if (v.c->role != Role::Validation)
      continue;
    for (const Inputs& k : inputs)
      if (k.c->role == Role::Calibration && k.all == v.all)
        problems.push_back(v.c->id + ": its resolved inputs equal the calibration case " + k.c->id +
                           "'s (only name and description differ): it tests no model, only the gap between "
                           "two published figures of one configuration");
  }
  return problems;
}

std::map<std::string, std::string> layout_siblings(const CaseList& list)
{
  std::map<std::string, std::string> out;
  const std::vector<Inputs> inputs = step_inputs(list, nullptr);
  for (const Inputs& v : inputs) {
    if (v.c->role != Role::Validation)
      continue;
    const auto k = std::find_if(inputs.begin(), inputs.end(), [&v](const Inputs& k) {
      return k.c->role == Role::Calibration && k.without_layout == v.without_layout;
    });
    if (k != inputs.end())
      out.emplace(v.c->id, k->c->id);
  }
  return out;
}

}  // namespace fleetsim::validation
