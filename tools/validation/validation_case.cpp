#include "validation_case.hpp"

#include "case_metrics.hpp"
#include "simulator/scenario/scenario_loader.hpp"
#include "simulator/scenario/yaml_document.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

namespace fleetsim::validation {
namespace {

using scenario::at;
using scenario::Diagnostics;

const std::vector<std::string> kCaseKeys = {"id",     "title",     "source",     "kind",      "inputs",
                                            "metric", "published", "unit",       "tolerance", "bound",
                                            "notes",  "seeds",     "step_model", "check",     "params",
                                            "role",   "family"};

// The keys each kind needs beyond id, title, source, kind, metric, published, unit (and tolerance
// unless it is a bound), and the ones it may not have.
struct KindRules {
  CaseKind kind;
  const char* name;
  std::vector<std::string> required;
  std::vector<std::string> forbidden;
};

const std::vector<KindRules>& kind_rules()
{
  static const std::vector<KindRules> rules = {
      {CaseKind::Step, "step", {"inputs"}, {"seeds", "check", "params"}},
      {CaseKind::Replay, "replay", {"inputs", "seeds"}, {"step_model", "check", "params"}},
      {CaseKind::Formula, "formula", {"check", "params"}, {"inputs", "seeds", "step_model"}},
  };
  return rules;
}

bool parse_number(const std::string& text, double& out)
{
  try {
    size_t used = 0;
    out = std::stod(text, &used);
    return used == text.size() && std::isfinite(out);
  } catch (const std::exception&) {
    return false;
  }
}

class CaseReader {
public:
  CaseReader(const std::string& file, Diagnostics& diags) : file_(file), diags_(diags) {}

  std::optional<ValidationCase> read(const YAML::Node& entry)
  {
    ValidationCase c;
    c.where = at(file_, entry.Mark());
    if (!entry.IsMap()) {
      diags_.error(c.where, "a case must be a map of keys (id, title, source, kind, ...)");
      return std::nullopt;
    }
    const size_t errors = diags_.items().size();
    if (!check_keys(entry))
      return std::nullopt;
    c.id = text(entry, "id", true);
    c.title = text(entry, "title", true);
    c.source = text(entry, "source", true);
    c.metric = text(entry, "metric", true);
    c.unit = text(entry, "unit", false);
    c.notes = text(entry, "notes", false);
    read_kind(entry, c);
    read_values(entry, c);
    read_kind_fields(entry, c);
    read_role(entry, c);
    if (diags_.items().size() != errors)
      return std::nullopt;
    return c;
  }

private:
  bool check_keys(const YAML::Node& entry)
  {
    bool ok = true;
    for (const auto& kv : entry) {
      const YAML::Node k = kv.first;
      const std::string name = k.IsScalar() ? k.Scalar() : "";
      if (std::find(kCaseKeys.begin(), kCaseKeys.end(), name) != kCaseKeys.end())
        continue;
      const std::string hint = scenario::did_you_mean(name, kCaseKeys);
      diags_.error(at(file_, k.Mark()),
                   "unknown case key '" + name + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
      ok = false;
    }
    return ok;
  }

  // A scalar's text; "" (and an error when `required`) when absent or not a scalar.
  std::string text(const YAML::Node& entry, const std::string& key, bool required)
  {
    const YAML::Node v = entry[key];
    if (!v.IsDefined() || v.IsNull()) {
      if (required)
        diags_.error(at(file_, entry.Mark()), "case is missing '" + key + "'");
      return "";
    }
    if (!v.IsScalar()) {
      diags_.error(at(file_, v.Mark()), "'" + key + "' expects a single value, not a list or map");
      return "";
    }
    return v.Scalar();
  }

  void read_role(const YAML::Node& entry, ValidationCase& c)
  {
    const std::string role = text(entry, "role", false);
    if (role == "calibration")
      c.role = Role::Calibration;
    else if (!role.empty() && role != "validation")
      diags_.error(at(file_, entry["role"].Mark()), "'role' is validation or calibration (got '" + role + "')");
    if (c.role == Role::Calibration && c.kind != CaseKind::Step)
      diags_.error(at(file_, entry["role"].Mark()), "only a step case can be a calibration case");
    c.family = text(entry, "family", false);
    if (c.family.empty())
      c.family = c.id.substr(0, c.id.find('-'));
  }

  void read_kind(const YAML::Node& entry, ValidationCase& c)
  {
    const std::string kind = text(entry, "kind", true);
    if (kind.empty())
      return;
    for (const auto& r : kind_rules())
      if (kind == r.name) {
        c.kind = r.kind;
        for (const auto& key : r.required)
          if (!entry[key].IsDefined())
            diags_.error(at(file_, entry.Mark()), "a " + kind + " case needs '" + key + "'");
        for (const auto& key : r.forbidden)
          if (entry[key].IsDefined())
            diags_.error(at(file_, entry[key].Mark()), "'" + key + "' is not a key of a " + kind + " case");
        return;
      }
    diags_.error(at(file_, entry["kind"].Mark()), "'kind' is one of step, replay, formula (got '" + kind + "')");
  }

  void read_values(const YAML::Node& entry, ValidationCase& c)
  {
    c.published_text = text(entry, "published", true);
    if (!c.published_text.empty() && !parse_number(c.published_text, c.published))
      diags_.error(at(file_, entry["published"].Mark()), "'published' expects a number in the case's unit");
    const std::string bound = text(entry, "bound", false);
    if (bound == "lower")
      c.bound = Bound::Lower;
    else if (bound == "upper")
      c.bound = Bound::Upper;
    else if (!bound.empty() && bound != "both")
      diags_.error(at(file_, entry["bound"].Mark()), "'bound' is one of both, lower, upper (got '" + bound + "')");
    c.tolerance.text = text(entry, "tolerance", c.bound == Bound::Both);
    if (c.tolerance.text.empty())
      return;
    std::string t = c.tolerance.text;
    c.tolerance.relative = t.back() == '%';
    if (c.tolerance.relative)
      t.pop_back();
    if (!parse_number(t, c.tolerance.value) || c.tolerance.value < 0)
      diags_.error(at(file_, entry["tolerance"].Mark()),
                   "'tolerance' expects a non-negative number in the case's unit, or a percentage of the published "
                   "value such as 10%");
    if (c.tolerance.relative)
      c.tolerance.value /= 100;
  }

  void read_kind_fields(const YAML::Node& entry, ValidationCase& c)
  {
    const YAML::Mark metric_mark = entry["metric"].IsDefined() ? entry["metric"].Mark() : entry.Mark();
    if (c.kind == CaseKind::Step || c.kind == CaseKind::Replay) {
      c.inputs = text(entry, "inputs", true);
      if (!c.inputs.empty())
        c.inputs_path = (std::filesystem::path(file_).parent_path() / c.inputs).lexically_normal().string();
    }
    if (c.kind == CaseKind::Step) {
      c.step_model = text(entry, "step_model", false);
      if (!c.step_model.empty() && c.step_model != "analytic" && c.step_model != "simulated")
        diags_.error(at(file_, entry["step_model"].Mark()), "'step_model' is analytic or simulated");
      const StepMetric* m = find_step_metric(c.metric);
      if (m == nullptr && !c.metric.empty()) {
        std::vector<std::string> names;
        for (const auto& s : step_metrics())
          names.emplace_back(s.name);
        unknown_metric(metric_mark, c.metric, names, "a step case's metric");
      }
      check_unit(entry, c, m != nullptr ? std::optional<std::string>(m->unit) : std::nullopt);
    } else if (c.kind == CaseKind::Replay) {
      read_seeds(entry, c);
      const auto unit = replay_metric_unit(c.metric);
      if (!unit && !c.metric.empty())
        unknown_metric(metric_mark, c.metric, {}, "a replay case's metric (a run metric, or summary.<path>)");
      check_unit(entry, c, unit && !unit->empty() ? unit : std::nullopt);
    } else {
      read_formula(entry, c);
    }
  }

  void read_seeds(const YAML::Node& entry, ValidationCase& c)
  {
    const std::string seeds = text(entry, "seeds", true);
    double n = 0;
    if (!seeds.empty() && (!parse_number(seeds, n) || n < 1 || n > 10000 || n != std::floor(n)))
      diags_.error(at(file_, entry["seeds"].Mark()), "'seeds' expects a whole number of seeds, 1 to 10000");
    c.seeds = static_cast<int>(n);
  }

  void read_formula(const YAML::Node& entry, ValidationCase& c)
  {
    c.check = text(entry, "check", true);
    const FormulaCheck* check = find_formula_check(c.check);
    if (check == nullptr) {
      if (!c.check.empty()) {
        std::vector<std::string> names;
        for (const auto& f : formula_checks())
          names.emplace_back(f.name);
        unknown_metric(entry["check"].Mark(), c.check, names, "a formula check");
      }
      return;
    }
    if (c.metric != c.check)
      diags_.error(at(file_, entry["metric"].Mark()), "a formula case's metric is its check ('" + c.check + "')");
    check_unit(entry, c, std::string(check->unit));
    const YAML::Node params = entry["params"];
    if (!params.IsDefined())
      return;  // reported with the kind's required keys
    if (!params.IsMap()) {
      diags_.error(at(file_, params.Mark()), "'params' expects a map of the check's parameters");
      return;
    }
    std::set<std::string> given;
    for (const auto& kv : params) {
      const YAML::Node k = kv.first;
      const YAML::Node v = kv.second;
      const std::string name = k.Scalar();
      const bool known = std::any_of(check->params.begin(), check->params.end(),
                                     [&name](const FormulaParam& p) { return name == p.name; });
      if (!known)
        diags_.error(at(file_, k.Mark()), "'" + c.check + "' has no parameter '" + name + "'");
      else if (!v.IsScalar())
        diags_.error(at(file_, v.Mark()), "params." + name + " expects a single value");
      else {
        c.params.emplace_back(name, v.Scalar());
        given.insert(name);
      }
    }
    for (const auto& p : check->params)
      if (given.count(p.name) == 0)
        diags_.error(at(file_, params.Mark()), "'" + c.check + "' needs the parameter '" + p.name + "'");
  }

  void unknown_metric(const YAML::Mark& mark, const std::string& metric, const std::vector<std::string>& names,
                      const std::string& what)
  {
    const std::string hint = scenario::did_you_mean(metric, names);
    std::string list;
    for (const auto& n : names)
      list += (list.empty() ? "" : ", ") + n;
    diags_.error(at(file_, mark), "'" + metric + "' is not " + what +
                                      (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                                      (list.empty() ? "" : "; one of: " + list));
  }

  void check_unit(const YAML::Node& entry, ValidationCase& c, const std::optional<std::string>& unit)
  {
    if (!unit)
      return;
    if (c.unit.empty())
      c.unit = *unit;
    else if (c.unit != *unit)
      diags_.error(at(file_, entry["unit"].Mark()),
                   "'" + c.metric + "' is measured in '" + *unit + "', not '" + c.unit + "'");
  }

  std::string file_;
  Diagnostics& diags_;
};

}  // namespace

const char* kind_name(CaseKind k)
{
  for (const auto& r : kind_rules())
    if (r.kind == k)
      return r.name;
  return "?";
}

const char* bound_name(Bound b) { return b == Bound::Lower ? "lower" : b == Bound::Upper ? "upper" : "both"; }

const char* role_name(Role r) { return r == Role::Calibration ? "calibration" : "validation"; }

CaseList read_case_list(const std::string& path, Diagnostics& diags)
{
  CaseList list{path, {}};
  const auto text = scenario::read_text_file(path, "case list", diags);
  if (!text)
    return list;
  const auto root = scenario::parse_map_document(*text, path, "case list", diags);
  if (!root)
    return list;
  for (const auto& kv : *root) {
    const YAML::Node k = kv.first;
    if (!k.IsScalar() || k.Scalar() != "cases")
      diags.error(at(path, k.Mark()),
                  "unknown key '" + (k.IsScalar() ? k.Scalar() : "") + "' (a case list holds 'cases')");
  }
  const YAML::Node cases = (*root)["cases"];
  if (!cases.IsSequence() || cases.size() == 0) {
    diags.error(at(path, cases.IsDefined() ? cases.Mark() : root->Mark()), "'cases' expects a list of cases");
    return list;
  }
  CaseReader reader(path, diags);
  for (const YAML::Node& entry : cases)
    if (auto c = reader.read(entry)) {
      for (const auto& earlier : list.cases)
        if (earlier.id == c->id)
          diags.error(c->where,
                      "duplicate case id '" + c->id + "' (first at line " + std::to_string(earlier.where.line) + ")");
      list.cases.push_back(std::move(*c));
    }
  return list;
}

std::vector<const ValidationCase*> select_cases(const CaseList& list, const std::vector<std::string>& patterns,
                                                Diagnostics& diags)
{
  std::vector<const ValidationCase*> out;
  std::vector<std::string> ids;
  for (const auto& c : list.cases)
    ids.push_back(c.id);
  // Hints name a whole id or one of its prefixes ending before a '-' ("daly06" for "dalyy").
  std::vector<std::string> prefixes = ids;
  for (const auto& id : ids)
    for (size_t dash = id.find('-'); dash != std::string::npos; dash = id.find('-', dash + 1))
      prefixes.push_back(id.substr(0, dash));
  std::vector<bool> taken(list.cases.size(), patterns.empty());
  for (const auto& p : patterns) {
    const bool glob = p.find_first_of("*?[") != std::string::npos;
    bool any = false;
    for (size_t i = 0; i < list.cases.size(); ++i)
      if (glob ? fnmatch(p.c_str(), ids[i].c_str(), 0) == 0 : ids[i].rfind(p, 0) == 0) {
        taken[i] = true;
        any = true;
      }
    if (!any) {
      const std::string hint = scenario::did_you_mean(p, prefixes);
      diags.error({"command line", 0, 0}, "no case of " + list.file + " matches '" + p + "'" +
                                              (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
  }
  for (size_t i = 0; i < list.cases.size(); ++i)
    if (taken[i])
      out.push_back(&list.cases[i]);
  return out;
}

bool passes(const ValidationCase& c, double simulated)
{
  if (!std::isfinite(simulated))
    return false;
  const double tol = c.tolerance.relative ? c.tolerance.value * std::abs(c.published) : c.tolerance.value;
  switch (c.bound) {
    case Bound::Lower: return simulated >= c.published - tol;
    case Bound::Upper: return simulated <= c.published + tol;
    case Bound::Both: break;
  }
  return std::abs(simulated - c.published) <= tol;
}

const std::vector<std::string>& hardware_keys()
{
  // Everything about the accelerator (its efficiency included), the fabric's link figures and the
  // generation's fitted costs of overlap and pipeline sends (fleetsim calibrate). The
  // cluster's size, the fabric's layout (pods, racks) and the training stack's choices (whether its
  // data parallelism overlaps the gradient all-reduce, network.dp_overlap) are a case's own: they
  // describe which machine and which software, not how fast a GPU generation is.
  static const std::vector<std::string> keys = {"accelerator.", "network.nvlink_bandwidth", "network.nvlink_latency",
                                                "network.nic_bandwidth", "network.nic_latency",
                                                "network.overlap_slowdown", "network.pp_overhead"};
  return keys;
}

bool is_hardware_key(const std::string& key)
{
  // Whether to check that the layout fits in HBM is the case's choice; the HBM size is hardware.
  if (key == "accelerator.memory_check")
    return false;
  const bool efficiency = key.find("efficiency") != std::string::npos;  // in any section
  return efficiency || std::any_of(hardware_keys().begin(), hardware_keys().end(), [&key](const std::string& k) {
           return k.back() == '.' ? key.rfind(k, 0) == 0 : key == k;
         });
}

std::vector<std::string> hardware_problems(const CaseList& list, const std::string& hardware_dir)
{
  namespace fs = std::filesystem;
  std::vector<std::string> problems;
  std::map<std::string, std::pair<std::string, std::string>> file_of_generation;  // name -> (file, case)
  fs::path hw = fs::weakly_canonical(hardware_dir);
  if (hw.filename().empty())
    hw = hw.parent_path();  // "scenarios/hardware/"
  for_each_loaded_step_case(list, problems, [&](const ValidationCase& c, const scenario::LoadResult& loaded) {
    std::string hardware;  // the last read: a cluster file's own include, the generation file
    for (const auto& inc : loaded.includes)
      if (fs::weakly_canonical(inc).parent_path() == hw)
        hardware = fs::path(inc).filename().string();
    if (hardware.empty())
      problems.push_back(c.id + ": " + c.inputs + " includes no hardware file of " + hardware_dir);
    std::string generation;
    for (const auto& v : loaded.resolved) {
      if (v.key == "accelerator.name")
        generation = v.text;
      if (is_hardware_key(v.key) && !v.is_default && !v.included)
        problems.push_back(c.id + ": " + v.where.file + ":" + std::to_string(v.where.line) + " sets the hardware key " +
                           v.key + " itself (it belongs in the hardware file)");
    }
    const auto [it, fresh] = file_of_generation.emplace(generation, std::make_pair(hardware, c.id));
    if (!fresh && it->second.first != hardware)
      problems.push_back(c.id + ": " + generation + " from " + hardware + ", but " + it->second.second +
                         " takes it from " + it->second.first);
  });
  return problems;
}

void for_each_loaded_step_case(const CaseList& list, std::vector<std::string>& problems,
                               const std::function<void(const ValidationCase&, const scenario::LoadResult&)>& visit)
{
  for (const auto& c : list.cases) {
    if (c.kind != CaseKind::Step)
      continue;
    const auto loaded = scenario::load_scenario_file(c.inputs_path);
    if (!loaded.diagnostics.empty())
      problems.push_back(c.id + ": " + loaded.diagnostics.to_string());
    else
      visit(c, loaded);
  }
}

}  // namespace fleetsim::validation
