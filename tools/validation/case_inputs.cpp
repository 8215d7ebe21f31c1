#include "case_inputs.hpp"

#include "simulator/scenario/scenario_loader.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

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

bool is_stack_key(const std::string& key)
{
  static const std::set<std::string> keys = {
      "model.loss_kernel",           "model.norm_kernel",
      "model.kernels",               "model.attention_kernel",
      "model.flash_attention",       "model.recompute",
      "model.micro_batch_size",      "model.dropout",
      "model.bytes_per_value",       "model.gradient_bytes",
      "model.optimizer_bytes",       "parallelism.virtual_stages",
      "parallelism.sequence_parallel", "parallelism.distributed_optimizer",
      "parallelism.overlap_data_parallel", "parallelism.gradients_after_flush",
      "parallelism.embedding_chunks", "parallelism.sharded_weights",
      "parallelism.sharded_gradients", "parallelism.cp_exchange",
      "network.tp_overlap",          "network.dp_overlap"};
  return keys.count(key) > 0;
}

namespace {

// The comment of a value's line and of the comment-only lines that continue it (indented deeper than
// the key), as one text.
std::string value_comment(const std::string& file, int line)
{
  std::ifstream in(file);
  std::string text;
  std::string comment;
  size_t indent = std::string::npos;
  for (int n = 1; std::getline(in, text); ++n) {
    if (n < line)
      continue;
    const size_t first = text.find_first_not_of(' ');
    if (n == line) {
      indent = first;
    } else if (first == std::string::npos || text[first] != '#' || first <= indent) {
      break;
    }
    const size_t hash = text.find('#', n == line ? text.find(':') : first);
    if (hash != std::string::npos)
      comment += text.substr(hash + 1) + " ";
  }
  return comment;
}

}  // namespace

std::vector<std::string> stack_problems(const CaseList& list, const std::string& stacks_dir)
{
  namespace fs = std::filesystem;
  std::vector<std::string> problems;
  fs::path stacks = fs::weakly_canonical(stacks_dir);
  if (stacks.filename().empty())
    stacks = stacks.parent_path();  // "scenarios/validation/stacks/"
  const std::regex source_tag(R"(\[[A-Z][A-Za-z0-9]*\])");
  const std::regex assumed("ASSUM");
  for_each_loaded_step_case(list, problems, [&](const ValidationCase& c, const scenario::LoadResult& loaded) {
    std::set<std::string> stack_files;
    for (const auto& inc : loaded.includes)
      if (fs::weakly_canonical(inc).parent_path() == stacks)
        stack_files.insert(fs::weakly_canonical(inc).string());
    if (stack_files.size() != 1)
      problems.push_back(c.id + ": " + c.inputs + " includes " + std::to_string(stack_files.size()) +
                         " files of " + stacks_dir + ": a case includes its training stack's file, one");
    for (const scenario::ResolvedValue& v : loaded.resolved) {
      if (v.is_default || v.where.line <= 0)
        continue;
      const std::string at = v.where.file + ":" + std::to_string(v.where.line);
      if (v.included) {
        if (stack_files.count(fs::weakly_canonical(v.where.file).string()) > 0 && !is_stack_key(v.key))
          problems.push_back(c.id + ": " + at + ": the stack file sets " + v.key +
                             ", which is not a stack key (it belongs in the case or the hardware file)");
        continue;
      }
      if (!is_stack_key(v.key))
        continue;
      const std::string comment = value_comment(v.where.file, v.where.line);
      if (!std::regex_search(comment, source_tag) || std::regex_search(comment, assumed))
        problems.push_back(c.id + ": " + at + " sets the stack key " + v.key + " itself without quoting its source " +
                           "(a source tag on its line and no assumption): a stack's default belongs in its stack " +
                           "file, the same for every case of that stack");
    }
  });
  return problems;
}

}  // namespace fleetsim::validation
