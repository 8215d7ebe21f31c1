#include "scenario_loader.hpp"

#include "simulator/logging/logging.hpp"

#include "job_sections.hpp"
#include "parameter_table.hpp"
#include "scenario_builder.hpp"
#include "yaml_document.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace fleetsim::scenario {
namespace {

std::string join(std::string_view prefix, std::string_view key)
{
  return prefix.empty() ? std::string(key) : std::string(prefix) + "." + std::string(key);
}

bool valid_name(const std::string& s)
{
  if (s.empty())
    return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

// The top-level key that names files whose keys are defaults for this one.
constexpr const char* kIncludeKey = "include";

class Flattener {
public:
  Flattener(std::string file, std::vector<ResolvedValue>& out, Diagnostics& diags)
      : file_(std::move(file)), out_(out), diags_(diags)
  {}

  void walk_map(const YAML::Node& map, const std::string& prefix)
  {
    for (const auto& entry : map) {
      // Copies (a Node is a handle): yaml-cpp's iterator->first is a member of a temporary proxy,
      // so a reference to it dangles at once (ASan: stack-use-after-scope; docs/hardening.md).
      const YAML::Node k = entry.first;
      const YAML::Node v = entry.second;
      if (!k.IsScalar()) {
        diags_.error(at(file_, k.Mark()), "keys must be plain names");
        continue;
      }
      const std::string name = k.Scalar();
      const std::string path = join(prefix, name);
      if (name == kIncludeKey) {
        if (!prefix.empty())
          diags_.error(at(file_, k.Mark()), "'include' belongs at the top level of a scenario file, not inside '" +
                                                prefix + "' (" + path + ")");
        continue;  // the top level's include is read by IncludeLoader
      }
      if (name.find('.') != std::string::npos) {
        diags_.error(at(file_, k.Mark()), "key '" + name + "' contains '.': nest it instead (" +
                                              name.substr(0, name.find('.')) + ": {" + name.substr(name.find('.') + 1) +
                                              ": ...})");
        continue;
      }
      const bool wildcard = is_wildcard_level(prefix);
      if (wildcard && !valid_name(name)) {
        diags_.error(at(file_, k.Mark()), "invalid name '" + name + "' for an entry of '" + prefix +
                                              "' (use lower-case letters, digits and _)");
        continue;
      }
      if (wildcard && (v.IsNull() || (v.IsMap() && v.size() == 0))) {
        diags_.error(at(file_, k.Mark()), "'" + path + "' is empty: give its keys (" + join_children(path) + ")");
        continue;
      }
      const auto own = job_section_path(path);  // a replayed job's own section, or a key of one
      if (is_section(path) || (own && v.IsMap() && is_section(*own))) {
        if (v.IsNull())
          continue;  // an empty section
        if (!v.IsMap()) {
          diags_.error(at(file_, v.Mark()), "'" + path + "' is a section: expected a map of keys");
          continue;
        }
        walk_map(v, path);
      } else if (find_param(path) != nullptr || job_section_key(path)) {
        add_leaf(path, v, k.Mark());
      } else if (own && own->find('.') != std::string::npos) {
        const std::string section = own->substr(0, own->rfind('.'));
        std::string msg = "unknown key '" + path + "'";
        if (const std::string hint = did_you_mean(name, children_of(section)); !hint.empty())
          msg += " (did you mean '" + join(prefix, hint) + "'?)";
        diags_.error(at(file_, k.Mark()), msg);
      } else {
        unknown_key(prefix, name, k.Mark());
      }
    }
  }

private:
  bool is_wildcard_level(const std::string& prefix) const
  {
    auto kids = children_of(prefix);
    return kids.size() == 1 && kids[0] == "<name>";
  }

  static std::string join_children(const std::string& path)
  {
    std::string out;
    for (const auto& c : children_of(path))
      out += (out.empty() ? "" : ", ") + c;
    return out;
  }

  void add_leaf(const std::string& path, const YAML::Node& v, const YAML::Mark& key_mark)
  {
    for (const auto& earlier : out_) {
      if (earlier.key == path) {
        diags_.error(at(file_, key_mark),
                     "duplicate key '" + path + "' (first given at line " + std::to_string(earlier.where.line) + ")");
        return;
      }
    }
    if (v.IsNull()) {
      diags_.error(at(file_, key_mark), "missing value for '" + path + "'");
    } else if (!v.IsScalar()) {
      diags_.error(at(file_, v.Mark()), "'" + path + "' expects a single value, not a list or map");
    } else {
      out_.push_back({path, v.Scalar(), at(file_, v.Mark()), false});
    }
  }

  void unknown_key(const std::string& prefix, const std::string& name, const YAML::Mark& mark)
  {
    std::vector<std::string> kids = children_of(prefix);
    std::string msg = "unknown key '" + join(prefix, name) + "'";
    std::string hint = did_you_mean(name, kids);
    if (!hint.empty() && hint != "<name>")
      msg += " (did you mean '" + join(prefix, hint) + "'?)";
    diags_.error(at(file_, mark), msg);
  }

  std::string file_;
  std::vector<ResolvedValue>& out_;
  Diagnostics& diags_;
};

// The sections whose children are named by the user ("<name>" in the table): causes, fleet jobs.
const std::vector<std::string>& wildcard_prefixes()
{
  static const std::vector<std::string> prefixes = [] {
    std::vector<std::string> out;
    for (const auto& p : parameter_table())
      if (auto pos = p.key.find("<name>"); pos != std::string::npos) {
        std::string prefix = p.key.substr(0, pos);
        if (std::find(out.begin(), out.end(), prefix) == out.end())
          out.push_back(prefix);
      }
    return out;
  }();
  return prefixes;
}

// The name a key gives to a "<name>" segment ("failures.causes.nic.count" -> "nic"), if any.
std::optional<std::string> wildcard_name(const std::string& key)
{
  for (const std::string& prefix : wildcard_prefixes())
    if (key.rfind(prefix, 0) == 0)
      return key.substr(prefix.size(), key.find('.', prefix.size()) - prefix.size());
  return std::nullopt;
}

// Every declared key, with "<name>" replaced by the name the user's key gives, for hints.
std::vector<std::string> concrete_keys(const std::string& user_key)
{
  const auto name = wildcard_name(user_key);
  std::vector<std::string> keys;
  for (const auto& p : parameter_table()) {
    std::string k = p.key;
    if (auto pos = k.find("<name>"); pos != std::string::npos && name)
      k.replace(pos, 6, *name);
    keys.push_back(k);
  }
  return keys;
}

void apply_overrides(const std::vector<std::string>& overrides, std::vector<ResolvedValue>& values, Diagnostics& diags)
{
  for (const auto& o : overrides) {
    const SourceLocation where{"command line", 0, 0};
    auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      diags.error(where, "--set '" + o + "' is not of the form key=value");
      continue;
    }
    std::string key = o.substr(0, eq);
    std::string value = o.substr(eq + 1);
    if (auto name = wildcard_name(key); name && !valid_name(*name)) {  // before the hint, which would repeat the key
      diags.error(where, "--set: invalid name '" + *name + "' in '" + key + "' (use lower-case letters, digits and _)");
      continue;
    }
    if (find_param(key) == nullptr && !job_section_key(key)) {
      std::string msg = "--set: unknown key '" + key + "'";
      std::string hint = did_you_mean(key, concrete_keys(key));
      if (!hint.empty())
        msg += " (did you mean '" + hint + "'?)";
      diags.error(where, msg);
      continue;
    }
    bool replaced = false;
    for (auto& v : values) {
      if (v.key == key) {
        v = {key, value, where, false};
        replaced = true;
      }
    }
    if (!replaced)
      values.push_back({key, value, where, false});
  }
}

// The names given under a wildcard section ("failures.causes.", "workload.jobs."), in order of first
// appearance.
std::vector<std::string> wildcard_names(const std::vector<ResolvedValue>& values, const std::string& prefix)
{
  std::vector<std::string> names;
  for (const auto& v : values) {
    if (v.key.rfind(prefix, 0) != 0)
      continue;
    std::string name = v.key.substr(prefix.size(), v.key.find('.', prefix.size()) - prefix.size());
    if (std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
  }
  return names;
}

// Every parameter in table order, given values first, then defaults; wildcard entries per name.
std::vector<ResolvedValue> resolve(const std::vector<ResolvedValue>& given, const std::string& file)
{
  std::vector<ResolvedValue> out;
  auto emit = [&](const ParamSpec& spec, const std::string& key) {
    for (const auto& g : given)
      if (g.key == key) {
        out.push_back(g);
        return;
      }
    if (spec.default_value)
      out.push_back({key, *spec.default_value, {file, 0, 0}, true});
  };
  // A network preset replaces the defaults of the keys the scenario leaves unset.
  std::string preset = "none";
  for (const auto& g : given)
    if (g.key == "network.preset")
      preset = g.text;
  const auto preset_pairs = preset_values(preset);
  const auto plain = emit;
  auto emit_with_preset = [&](const ParamSpec& spec, const std::string& key) {
    for (const auto& g : given)
      if (g.key == key)
        return plain(spec, key);
    for (const auto& [k, v] : preset_pairs)
      if (k == key) {
        out.push_back({key, v, {"preset " + preset, 0, 0}, true});
        return;
      }
    plain(spec, key);
  };
  const auto& table = parameter_table();
  for (size_t i = 0; i < table.size(); ++i) {
    const auto& spec = table[i];
    auto wild = spec.key.find("<name>");
    if (wild == std::string::npos) {
      emit_with_preset(spec, spec.key);
      continue;
    }
    // A block of wildcard specs: emit it whole for each name, then skip past it.
    const std::string prefix = spec.key.substr(0, wild);
    size_t end = i;
    while (end < table.size() && table[end].key.rfind(prefix + "<name>", 0) == 0)
      ++end;
    for (const auto& name : wildcard_names(given, prefix))
      for (size_t j = i; j < end; ++j) {
        std::string key = table[j].key;
        key.replace(key.find("<name>"), 6, name);
        emit(table[j], key);
      }
    i = end - 1;
  }
  return out;
}

// Later values replace earlier ones of the same key; new keys are appended in order.
void merge_over(std::vector<ResolvedValue>& base, const std::vector<ResolvedValue>& over)
{
  for (const auto& v : over) {
    const auto same = std::find_if(base.begin(), base.end(), [&v](const ResolvedValue& b) { return b.key == v.key; });
    if (same != base.end())
      *same = v;
    else
      base.push_back(v);
  }
}

// A scenario file and the files it includes: `include: PATH` or `include: [PATH, ...]` at the top
// level, each path relative to the including file's directory. The included files' keys (in
// order, later ones winning) are defaults that the including file's own keys replace; nested
// includes are read the same way. Every value keeps the file and line it was written at.
class IncludeLoader {
public:
  IncludeLoader(Diagnostics& diags, std::vector<std::string>& includes) : diags_(diags), includes_(includes) {}

  void load(const YAML::Node& root, const std::string& file, std::vector<ResolvedValue>& out)
  {
    chain_.push_back({identity(file), file});
    std::vector<ResolvedValue> own;
    Flattener(file, own, diags_).walk_map(root, "");
    std::vector<ResolvedValue> merged;
    if (const YAML::Node list = root[kIncludeKey]; list.IsDefined())
      for (const YAML::Node& entry : entries(list, file))
        include_one(entry, file, merged);
    for (auto& v : merged)
      v.included = true;
    merge_over(merged, own);
    merge_over(out, merged);
    chain_.pop_back();
  }

private:
  static std::string identity(const std::string& file)
  {
    std::error_code ec;
    const auto canonical = std::filesystem::weakly_canonical(file, ec);
    return ec ? std::filesystem::path(file).lexically_normal().string() : canonical.string();
  }

  std::vector<YAML::Node> entries(const YAML::Node& list, const std::string& file)
  {
    std::vector<YAML::Node> out;
    if (list.IsScalar())
      out.push_back(list);
    else if (list.IsSequence())
      for (const YAML::Node& e : list)
        out.push_back(e);
    for (const YAML::Node& e : out)
      if (!e.IsScalar() || e.Scalar().empty()) {
        diags_.error(at(file, e.Mark()), "'include' expects a file path or a list of file paths");
        return {};
      }
    if (!list.IsScalar() && !list.IsSequence())
      diags_.error(at(file, list.Mark()), "'include' expects a file path or a list of file paths");
    return out;
  }

  void include_one(const YAML::Node& entry, const std::string& file, std::vector<ResolvedValue>& merged)
  {
    const std::string path = (std::filesystem::path(file).parent_path() / entry.Scalar()).lexically_normal().string();
    const SourceLocation where = at(file, entry.Mark());
    const std::string id = identity(path);
    for (const auto& [seen, shown] : chain_)
      if (seen == id) {
        std::string cycle;
        for (const auto& link : chain_)
          cycle += link.second + " -> ";
        diags_.error(where, "include: cycle " + cycle + path);
        return;
      }
    const auto text = read_text_file(path, "included scenario", diags_, where);
    if (!text)
      return;
    const auto root = parse_map_document(*text, path, "scenario", diags_);
    if (!root)
      return;
    includes_.push_back(path);
    std::vector<ResolvedValue> values;
    load(*root, path, values);
    merge_over(merged, values);
  }

  Diagnostics& diags_;
  std::vector<std::string>& includes_;
  std::vector<std::pair<std::string, std::string>> chain_;  // (identity, as shown) of the files being read
};

}  // namespace

LoadResult load_scenario_text(std::string_view yaml, const std::string& display_name,
                              const std::vector<std::string>& overrides, UnusedKeys unused)
{
  LoadResult result;
  std::vector<ResolvedValue> given;
  const auto root = parse_map_document(yaml, display_name, "scenario", result.diagnostics);
  if (!root)
    return result;
  IncludeLoader(result.diagnostics, result.includes).load(*root, display_name, given);
  apply_overrides(overrides, given, result.diagnostics);
  const auto job_values = take_job_values(given);
  result.resolved = resolve(given, display_name);
  // Keep going after structural errors: value errors are reported in the same pass.
  result.scenario = build_scenario(result.resolved, display_name, result.diagnostics,
                                   job_values.empty() ? unused : UnusedKeys::List);
  if (result.diagnostics.empty() && !job_values.empty()) {
    build_job_scenarios(
        given, job_values, display_name, *result.scenario, result.diagnostics,
        [&display_name](const std::vector<ResolvedValue>& values) { return resolve(values, display_name); });
    if (unused == UnusedKeys::Refuse)
      refuse_unused(result.resolved, *result.scenario, result.diagnostics);
  }
  if (result.diagnostics.empty())
    check_replayed_fit(result.resolved, job_values, display_name, *result.scenario, result.diagnostics);
  for (const auto& job : job_values)  // (shown by a dump, after the fleet's own keys)
    result.resolved.insert(result.resolved.end(), job.second.begin(), job.second.end());
  result.diagnostics.sort_by_position();
  if (!result.diagnostics.empty())
    result.scenario.reset();
  return result;
}

LoadResult load_scenario_file(const std::string& path, const std::vector<std::string>& overrides, UnusedKeys unused)
{
  LoadResult failed;
  const auto text = read_text_file(path, "scenario", failed.diagnostics);
  if (!text)
    return failed;
  LoadResult result = load_scenario_text(*text, path, overrides, unused);
  if (result.scenario)
    FLEETSIM_LOG(Scenario, info, "{}: {} GPUs, {} failure causes, {:.1f} days, recovery {}", path,
                 result.scenario->fleet.gpus, result.scenario->causes.size(), result.scenario->duration.si() / 86400,
                 result.scenario->recovery.policy_name);
  return result;
}

bool gives_workload(const std::vector<ResolvedValue>& resolved)
{
  return std::any_of(resolved.begin(), resolved.end(), [](const ResolvedValue& v) {
    return v.key.rfind("workload.jobs.", 0) == 0 ||
           (!v.is_default && (v.key.rfind("workload.trace.", 0) == 0 || v.key.rfind("workload.generator.", 0) == 0));
  });
}

bool gives_replayed_job(const std::vector<ResolvedValue>& resolved)
{
  return std::any_of(resolved.begin(), resolved.end(), [](const ResolvedValue& v) {
    return v.key.rfind("workload.jobs.", 0) == 0 && v.key.size() > 8 &&
           v.key.compare(v.key.size() - 8, 8, ".runtime") == 0 && v.text == "replay";
  });
}

}  // namespace fleetsim::scenario
